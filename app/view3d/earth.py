"""The Earth of the orbit view: a sphere with its continents, lit by the Sun, and its shadow.

The continents come from ``assets/earth/land.npz``, the land fraction of
cells of 0.5 deg baked by ``tools/make_earth.py`` from the land/sea mask of
the ``global-land-mask`` package (MIT licence; the GLOBE 1-km elevation
model of NOAA NGDC, public domain): nothing is downloaded or computed at run
time.  The map is a texture of one byte per cell; the fragment shader finds
the latitude and longitude of each pixel from its direction in Earth-fixed
axes (ECEF), so there is no seam and no stretched pole.  The side away from
the Sun is shaded as night, with a soft terminator.

:class:`EarthItem` is drawn in ECEF coordinates, scaled to the scene; its
transform turns ECEF into the scene's ECI axes (:mod:`app.view3d.orbit`).
"""

from __future__ import annotations

import functools
import importlib.resources

import numpy as np
from OpenGL import GL
from pyqtgraph.opengl import shaders

from app.view3d.glitems import ArrayItem, uniform_location

__all__ = ["EarthItem", "EARTH_SHADER", "land_map", "sphere_triangles", "cylinder_triangles",
           "OCEAN_COLOR", "LAND_COLOR", "ICE_COLOR", "NIGHT"]

OCEAN_COLOR = (0.10, 0.28, 0.58)
"""RGB of the sea by day."""
LAND_COLOR = (0.36, 0.56, 0.26)
"""RGB of land by day."""
ICE_COLOR = (0.88, 0.90, 0.94)
"""RGB of land beyond 65 deg of latitude (Antarctica, Greenland): the land colour fades into it from 58 deg."""
NIGHT = 0.22
"""Brightness of the night side (the day side is 1)."""

EARTH_SHADER = shaders.ShaderProgram(
    "attitude_sim_earth",
    [
        shaders.VertexShader(
            """
            uniform mat4 u_mvp;
            attribute vec4 a_position;
            attribute vec4 a_color;
            varying vec3 v_dir;
            varying vec4 v_color;
            void main() {
                v_dir = a_position.xyz;
                v_color = a_color;
                gl_Position = u_mvp * a_position;
            }
            """
        ),
        shaders.FragmentShader(
            f"""
            #ifdef GL_ES
            precision mediump float;
            #endif
            uniform sampler2D u_land;
            uniform vec3 u_sun;
            varying vec3 v_dir;
            varying vec4 v_color;
            void main() {{
                vec3 d = normalize(v_dir);
                float lat = asin(clamp(d.z, -1.0, 1.0));
                float lon = atan(d.y, d.x);
                // row 0 of the map is the north (latitude +90), column 0 longitude -180
                vec2 uv = vec2(lon / 6.2831853 + 0.5, 0.5 - lat / 3.1415927);
                float land = texture2D(u_land, uv).r;
                float ice = smoothstep(1.012, 1.134, abs(lat));  // 58 to 65 deg
                vec3 ground = mix(vec3{LAND_COLOR}, vec3{ICE_COLOR}, ice);
                vec3 rgb = mix(vec3{OCEAN_COLOR}, ground, land);
                float day = dot(d, normalize(u_sun));
                float light = {NIGHT} + (1.0 - {NIGHT}) * smoothstep(-0.08, 0.12, day) * (0.75 + 0.25 * max(day, 0.0));
                gl_FragColor = vec4(rgb * light * v_color.rgb, 1.0);
            }}
            """
        ),
    ],
)
"""The Earth: the land map sampled by latitude and longitude, the night side dimmed by the Sun's direction."""


@functools.cache
def land_map() -> np.ndarray:
    """The baked land fraction, ``(360, 720)`` uint8 (0 sea, 255 land): rows from latitude +90 south, columns east
    from longitude -180 (``tools/make_earth.py``)."""
    with importlib.resources.files("assets").joinpath("earth/land.npz").open("rb") as f:
        land = np.load(f)["land"]
    land.setflags(write=False)
    return land


def sphere_triangles(radius: float, rows: int = 48, cols: int = 96) -> np.ndarray:
    """A sphere of ``radius`` about the origin as ``(6 rows cols, 3)`` triangle corners (counter-clockwise
    seen from outside), from a grid of ``rows`` latitudes by ``cols`` longitudes."""
    lat = np.linspace(np.pi / 2, -np.pi / 2, rows + 1)
    lon = np.linspace(-np.pi, np.pi, cols + 1)
    la, lo = np.meshgrid(lat, lon, indexing="ij")
    p = radius * np.stack([np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo), np.sin(la)], axis=-1)
    a, b, c, d = p[:-1, :-1], p[1:, :-1], p[1:, 1:], p[:-1, 1:]  # a north-west, b south-west, c south-east
    return np.stack([a, b, c, a, c, d], axis=2).reshape(-1, 3)


def cylinder_triangles(radius: float, length: float, segments: int = 48) -> np.ndarray:
    """The side of a cylinder along +z from 0 to ``length``, as ``(6 segments, 3)`` triangle corners."""
    t = np.linspace(0.0, 2.0 * np.pi, segments + 1)
    ring = np.stack([radius * np.cos(t), radius * np.sin(t), np.zeros_like(t)], axis=-1)
    top = ring + (0.0, 0.0, length)
    a, b, c, d = ring[:-1], ring[1:], top[1:], top[:-1]
    return np.stack([a, b, c, a, c, d], axis=1).reshape(-1, 3)


class EarthItem(ArrayItem):
    """The Earth, in ECEF coordinates scaled to the scene: continents from :func:`land_map`, night by the Sun.

    Parameters
    ----------
    radius : float
        The sphere's radius in scene units.
    parentItem : GLGraphicsItem, optional
    """

    def __init__(self, radius: float, parentItem=None):
        super().__init__({"a_position": sphere_triangles(radius)}, (1.0, 1.0, 1.0, 1.0), EARTH_SHADER,
                         GL.GL_TRIANGLES, parentItem=parentItem)
        self.radius = float(radius)
        self._sun = np.array([1.0, 0.0, 0.0], dtype=np.float32)
        self._texture = None

    @property
    def sun(self) -> np.ndarray:
        """The unit vector to the Sun in the item's (ECEF) axes, as last set."""
        return self._sun.copy()

    def set_sun(self, sun_ecef) -> None:
        """Light the Earth from the Sun's direction (a unit vector in ECEF axes)."""
        s = np.asarray(sun_ecef, dtype=np.float32)
        if s.shape != (3,) or not np.all(np.isfinite(s)):
            raise ValueError(f"sun: expected a finite 3-vector, got {sun_ecef!r}")
        if not np.array_equal(s, self._sun):
            self._sun = s
            self.update()

    def _upload(self) -> None:
        """The land map as a one-channel texture (once, in the drawing context)."""
        land = np.ascontiguousarray(land_map())
        self._texture = GL.glGenTextures(1)
        GL.glBindTexture(GL.GL_TEXTURE_2D, self._texture)
        GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
        GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, GL.GL_R8, land.shape[1], land.shape[0], 0, GL.GL_RED,
                        GL.GL_UNSIGNED_BYTE, land)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, GL.GL_LINEAR)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, GL.GL_LINEAR)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_S, GL.GL_REPEAT)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_T, GL.GL_CLAMP_TO_EDGE)

    def _set_uniforms(self, program: int) -> None:
        GL.glActiveTexture(GL.GL_TEXTURE0)
        if self._texture is None:
            self._upload()
        GL.glBindTexture(GL.GL_TEXTURE_2D, self._texture)
        GL.glUniform1i(uniform_location(program, "u_land"), 0)
        GL.glUniform3f(uniform_location(program, "u_sun"), *(float(x) for x in self._sun))

    #: Draw only the faces turned to the camera.  The sphere is closed and convex, its triangles
    #: counter-clockwise seen from outside (:func:`sphere_triangles`), so its far half is always hidden by
    #: its near half: the same picture, and llvmpipe no longer colours the far half's pixels that the depth
    #: test would have let through before the near half covered them (issue 42).
    cull = True

    def _draw(self) -> None:
        if self.cull:
            GL.glEnable(GL.GL_CULL_FACE)
            GL.glCullFace(GL.GL_BACK)
            GL.glFrontFace(GL.GL_CCW)
        try:
            super()._draw()
        finally:
            if self.cull:
                GL.glDisable(GL.GL_CULL_FACE)
            GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
