"""Lean OpenGL items for the 3-D views: a lit triangle mesh, coloured lines and points.

pyqtgraph's ``GLMeshItem`` and ``GLLinePlotItem`` look up attribute and
uniform locations, bind and release each vertex buffer and set every
attribute pointer on every frame: about 25 PyOpenGL calls per item, each
some Python, which adds up over the dozen items of the attitude scene
(docs/PERFORMANCE.md).  The items here record their vertex layout once in a vertex
array object and cache the locations, so a frame costs each of them about
six GL calls.  They are ``GLGraphicsItem``\\ s: transforms, parents,
visibility, depth order and GL options work as for pyqtgraph's own items.

Geometry is fixed at construction (the attitude scene only moves items),
except for :class:`PointsItem`, whose points, colours and sizes are replaced
as a whole with :meth:`PointsItem.set_data` (the ensemble view, every frame),
and the placements of :class:`InstancedMeshItem`, which draws one mesh many
times in one call (``glDrawArraysInstanced``; the ensemble's aircraft).
Vertex buffers and arrays are created in the first :meth:`paint`, in the GL
context of the view that draws the item.
"""

from __future__ import annotations

import ctypes
import functools

import numpy as np
from OpenGL import GL
from pyqtgraph.opengl.GLGraphicsItem import GLGraphicsItem
from PySide6.QtOpenGL import QOpenGLBuffer, QOpenGLVertexArrayObject

from app.view3d.shaders import INSTANCED_SHADER, LINE_SHADER, LIT_SHADER, POINT_SHADER

__all__ = ["ArrayItem", "uniform_location", "MeshItem", "InstancedMeshItem", "LineItem", "PointsItem", "LIT_SHADER", "LINE_SHADER",
           "POINT_SHADER", "INSTANCED_SHADER"]

@functools.cache
def _attribute(program: int, name: str) -> int:
    """Location of attribute ``name`` in ``program`` (looked up once)."""
    return GL.glGetAttribLocation(program, name)


@functools.cache
def uniform_location(program: int, name: str) -> int:
    """Location of uniform ``name`` in ``program`` (looked up once)."""
    return GL.glGetUniformLocation(program, name)


def _colors(color, n: int):
    """``(n, 4)`` float32 per-vertex colours, or None with ``color`` a single RGBA."""
    color = np.asarray(color, dtype=np.float32)
    if color.ndim == 1:
        if color.shape != (4,):
            raise ValueError(f"color: expected RGBA, got shape {color.shape}")
        return None
    if color.shape != (n, 4):
        raise ValueError(f"color: expected shape ({n}, 4), got {color.shape}")
    return np.ascontiguousarray(color)


class ArrayItem(GLGraphicsItem):
    """Vertex attributes in buffers recorded in one vertex array object, drawn as ``primitive``."""

    def __init__(self, arrays: dict, color, program, primitive, parentItem=None, glOptions="opaque"):
        super().__init__(parentItem=parentItem)
        self.setGLOptions(glOptions)
        self._arrays = {name: np.ascontiguousarray(a, dtype=np.float32) for name, a in arrays.items()}
        self._count = len(next(iter(self._arrays.values())))
        self._shader = program
        self._primitive = primitive
        per_vertex = _colors(color, self._count)
        if per_vertex is not None:
            self._arrays["a_color"] = per_vertex
            self._color = None
        else:
            self._color = tuple(float(c) for c in color)
        self._vao = None
        self._buffers = {}  # name -> buffer, held here: the array object does not keep them alive

    def _build(self, program: int) -> None:
        """Upload the arrays and record their layout (once, in the drawing context)."""
        self._vao = QOpenGLVertexArrayObject()
        self._vao.create()
        self._vao.bind()
        for name, array in self._arrays.items():
            location = _attribute(program, name)
            if location < 0:
                continue
            buffer = QOpenGLBuffer(QOpenGLBuffer.Type.VertexBuffer)
            buffer.create()
            buffer.bind()
            buffer.allocate(array, array.nbytes)
            GL.glVertexAttribPointer(location, array.shape[1], GL.GL_FLOAT, False, 0, None)
            GL.glEnableVertexAttribArray(location)
            buffer.release()
            self._buffers[name] = buffer
        self._vao.release()

    def _set_uniforms(self, program: int) -> None:
        """Uniforms besides ``u_mvp`` (none here)."""

    def paint(self):
        self.setupGLState()
        program = self._shader.program()
        if self._vao is None:
            self._build(program)
        GL.glUseProgram(program)
        try:
            GL.glUniformMatrix4fv(uniform_location(program, "u_mvp"), 1, False,
                                  np.array(self.mvpMatrix().data(), dtype=np.float32))
            self._set_uniforms(program)
            if self._color is not None:  # generic attribute: not part of the array object
                GL.glVertexAttrib4f(_attribute(program, "a_color"), *self._color)
            self._vao.bind()
            self._draw()
            self._vao.release()
        finally:
            GL.glUseProgram(0)

    def _draw(self) -> None:
        """The draw call, with the program in use and the array object bound."""
        GL.glDrawArrays(self._primitive, 0, self._count)


class MeshItem(ArrayItem):
    """A flat-shaded triangle mesh drawn with :data:`LIT_SHADER`.

    Parameters
    ----------
    meshdata : pyqtgraph.opengl.MeshData
        Triangles; drawn with one normal per face (flat shading).
    color : RGBA, optional
        One colour for the whole mesh instead of the mesh's vertex colours.
    parentItem, glOptions
        As for pyqtgraph's items.
    """

    def __init__(self, meshdata, color=None, parentItem=None, glOptions="opaque"):
        vertices = meshdata.vertexes(indexed="faces").reshape(-1, 3)
        normals = meshdata.faceNormals(indexed="faces").reshape(-1, 3)
        if color is None:
            if not meshdata.hasVertexColor():
                raise ValueError("meshdata has no vertex colours: give a color")
            color = meshdata.vertexColors(indexed="faces").reshape(-1, 4)
        super().__init__({"a_position": vertices, "a_normal": normals}, color, LIT_SHADER, GL.GL_TRIANGLES,
                         parentItem=parentItem, glOptions=glOptions)
        self.meshdata = meshdata

    def _set_uniforms(self, program: int) -> None:
        GL.glUniformMatrix3fv(uniform_location(program, "u_normal"), 1, False,
                              np.array(self.modelViewMatrix().normalMatrix().data(), dtype=np.float32))


class LineItem(ArrayItem):
    """Line segments (``"lines"``) or a polyline (``"line_strip"``) in one or per-vertex colours.

    Parameters
    ----------
    pos : array_like, shape (n, 3)
        Points in the item's coordinates.
    color : RGBA or array_like, shape (n, 4)
        One colour, or one per point.
    width : float
        Line width in pixels.
    mode : {"lines", "line_strip"}
    parentItem, glOptions
        As for pyqtgraph's items.
    """

    _MODES = {"lines": GL.GL_LINES, "line_strip": GL.GL_LINE_STRIP}

    def __init__(self, pos, color, width: float = 1.0, mode: str = "lines", parentItem=None,
                 glOptions="opaque"):
        if mode not in self._MODES:
            raise ValueError(f"mode: expected one of {', '.join(self._MODES)}, got {mode!r}")
        pos = np.asarray(pos, dtype=np.float32)
        if pos.ndim != 2 or pos.shape[1] != 3:
            raise ValueError(f"pos: expected shape (n, 3), got {pos.shape}")
        super().__init__({"a_position": pos}, color, LINE_SHADER, self._MODES[mode], parentItem=parentItem,
                         glOptions=glOptions)
        self.pos = pos
        self.width = float(width)
        self.mode = mode

    @property
    def colors(self):
        """``(n, 4)`` float32 colour per point, as last set (None for one colour for all)."""
        return self._arrays.get("a_color")

    def set_data(self, pos, color) -> None:
        """Replace the points and their colours (per vertex, shape (n, 4)); drawn at the next paint."""
        pos = np.ascontiguousarray(pos, dtype=np.float32)
        color = _colors(color, len(pos))
        if pos.ndim != 2 or pos.shape[1] != 3 or color is None:
            raise ValueError("set_data: expected pos (n, 3) and one colour per point (n, 4)")
        self._arrays = {"a_position": pos, "a_color": color}
        self._color = None
        self._count = len(pos)
        self.pos = pos
        self._dirty = True
        self.update()

    def paint(self):
        if self._vao is not None and getattr(self, "_dirty", False):
            if set(self._buffers) != set(self._arrays):  # a single colour became per vertex: record again
                self._vao = None
                self._buffers = {}
            else:
                for name, buffer in self._buffers.items():
                    array = self._arrays[name]
                    buffer.bind()
                    buffer.allocate(array, array.nbytes)
                    buffer.release()
        self._dirty = False
        GL.glLineWidth(self.width)
        super().paint()
        GL.glLineWidth(1.0)


class PointsItem(ArrayItem):
    """Round points, each with its own colour and size, drawn in one call with :data:`POINT_SHADER`.

    Parameters
    ----------
    pos : array_like, shape (n, 3)
        Points in the item's coordinates.
    color : array_like, shape (n, 4)
        RGBA per point, in [0, 1].
    size : float or array_like, shape (n,)
        Diameter in pixels, one for all or one per point.
    parentItem, glOptions
        As for pyqtgraph's items.

    :meth:`set_data` replaces the points; the buffers are written again in
    the next :meth:`paint` (reallocated only when the number of points
    changes).
    """

    def __init__(self, pos, color, size=5.0, parentItem=None, glOptions="opaque"):
        arrays = self._checked(pos, color, size)
        super().__init__({"a_position": arrays[0], "a_size": arrays[2]}, arrays[1], POINT_SHADER,
                         GL.GL_POINTS, parentItem=parentItem, glOptions=glOptions)
        self._dirty = False

    @staticmethod
    def _checked(pos, color, size):
        pos = np.ascontiguousarray(pos, dtype=np.float32)
        if pos.ndim != 2 or pos.shape[1] != 3:
            raise ValueError(f"pos: expected shape (n, 3), got {pos.shape}")
        n = len(pos)
        color = np.ascontiguousarray(color, dtype=np.float32)
        if color.shape != (n, 4):
            raise ValueError(f"color: expected shape ({n}, 4), got {color.shape}")
        size = np.asarray(size, dtype=np.float32)
        if size.ndim == 0:
            size = np.full(n, size, dtype=np.float32)
        if size.shape != (n,):
            raise ValueError(f"size: expected a number or shape ({n},), got {size.shape}")
        return pos, color, np.ascontiguousarray(size.reshape(n, 1))

    @property
    def count(self) -> int:
        """Number of points."""
        return self._count

    @property
    def pos(self):
        """``(n, 3)`` float32 positions as last set."""
        return self._arrays["a_position"]

    @property
    def color(self):
        """``(n, 4)`` float32 colours as last set."""
        return self._arrays["a_color"]

    @property
    def size(self):
        """``(n,)`` float32 diameters in pixels as last set."""
        return self._arrays["a_size"][:, 0]

    def set_data(self, pos, color, size=5.0) -> None:
        """Replace the points (same shapes as for the constructor); drawn at the next paint."""
        pos, color, size = self._checked(pos, color, size)
        self._arrays = {"a_position": pos, "a_color": color, "a_size": size}
        self._count = len(pos)
        self._dirty = True
        self.update()

    def paint(self):
        if self._vao is not None and self._dirty:
            for name, buffer in self._buffers.items():
                array = self._arrays[name]
                buffer.bind()
                buffer.allocate(array, array.nbytes)  # glBufferData: same size is cheap, any size works
                buffer.release()
        self._dirty = False
        if self._count == 0:
            return
        GL.glEnable(GL.GL_PROGRAM_POINT_SIZE)
        GL.glEnable(GL.GL_POINT_SPRITE)  # gl_PointCoord in a compatibility profile
        try:
            super().paint()
        finally:
            GL.glDisable(GL.GL_POINT_SPRITE)
            GL.glDisable(GL.GL_PROGRAM_POINT_SIZE)


class InstancedMeshItem(MeshItem):
    """Copies of one flat-shaded mesh, each placed, turned and tinted by its own data, drawn in one call.

    Each copy ``i`` draws the mesh's vertex ``p`` (item coordinates) at
    ``offsets[i] + axes[i] @ p``: ``axes[i]`` is a 3x3 matrix whose columns
    are the images of the mesh's x, y and z axes (a rotation times a scale).
    Its grey parts take the colour ``tints[i]`` (see :data:`INSTANCED_SHADER`).
    The per-copy data are instanced vertex attributes
    (``glVertexAttribDivisor``), so a frame uploads 64 bytes per copy and
    makes one ``glDrawArraysInstanced`` call, whatever the number of copies.

    Parameters
    ----------
    meshdata : pyqtgraph.opengl.MeshData
        Triangles with vertex colours (flat shading, as :class:`MeshItem`).
    parentItem, glOptions
        As for pyqtgraph's items.
    """

    #: Per-copy attributes and their sizes, in the order of a row of the instance buffer.
    _PER_COPY = (("a_offset", 3), ("a_axis_x", 3), ("a_axis_y", 3), ("a_axis_z", 3), ("a_tint", 4))
    _WIDTH = sum(size for _, size in _PER_COPY)

    def __init__(self, meshdata, parentItem=None, glOptions="opaque"):
        super().__init__(meshdata, parentItem=parentItem, glOptions=glOptions)
        self._shader = INSTANCED_SHADER
        self._instances = np.zeros((0, self._WIDTH), dtype=np.float32)
        self._instance_buffer = None
        self._instances_dirty = True

    @property
    def instances(self) -> int:
        """Number of copies drawn."""
        return len(self._instances)

    @property
    def placements(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(offsets, axes, tints)`` as last set: float32 arrays of shapes (m, 3), (m, 3, 3) and (m, 4)."""
        data = self._instances
        return data[:, :3], data[:, 3:12].reshape(-1, 3, 3).transpose(0, 2, 1), data[:, 12:]

    def set_instances(self, offsets, axes, tints=None) -> None:
        """Place the copies: ``offsets`` (m, 3), ``axes`` (m, 3, 3) (columns: the images of x, y, z),
        ``tints`` (m, 4) RGBA or None (the mesh's own colours)."""
        offsets = np.asarray(offsets, dtype=np.float32)
        axes = np.asarray(axes, dtype=np.float32)
        m = len(offsets)
        if offsets.shape != (m, 3) or axes.shape != (m, 3, 3):
            raise ValueError(f"expected offsets (m, 3) and axes (m, 3, 3), got {offsets.shape} and {axes.shape}")
        data = np.zeros((m, self._WIDTH), dtype=np.float32)
        data[:, :3] = offsets
        data[:, 3:12] = axes.transpose(0, 2, 1).reshape(m, 9)  # column by column: x, y, z axes
        if tints is not None:
            tints = np.asarray(tints, dtype=np.float32)
            if tints.shape != (m, 4):
                raise ValueError(f"tints: expected shape ({m}, 4), got {tints.shape}")
            data[:, 12:] = tints
        self._instances = data
        self._instances_dirty = True
        self.update()

    def _build(self, program: int) -> None:
        super()._build(program)
        self._vao.bind()
        buffer = QOpenGLBuffer(QOpenGLBuffer.Type.VertexBuffer)
        buffer.create()
        buffer.bind()
        stride, start = 4 * self._WIDTH, 0
        for name, size in self._PER_COPY:
            location = _attribute(program, name)
            GL.glVertexAttribPointer(location, size, GL.GL_FLOAT, False, stride, ctypes.c_void_p(4 * start))
            GL.glEnableVertexAttribArray(location)
            GL.glVertexAttribDivisor(location, 1)
            start += size
        buffer.release()
        self._vao.release()
        self._instance_buffer = buffer
        self._instances_dirty = True

    def paint(self):
        if len(self._instances):
            super().paint()

    def _draw(self) -> None:
        if self._instances_dirty:
            data = self._instances
            self._instance_buffer.bind()
            self._instance_buffer.allocate(data, data.nbytes)
            self._instance_buffer.release()
            self._instances_dirty = False
        GL.glDrawArraysInstanced(self._primitive, 0, self._count, len(self._instances))
