"""The GLSL programs of the lean items (:mod:`app.view3d.glitems`): a lit mesh, lines, points, and instanced copies
of one lit mesh.

Each is a pyqtgraph ``ShaderProgram``, compiled in the GL context of the
first view that draws with it.
"""

from __future__ import annotations

from pyqtgraph.opengl import shaders

__all__ = ["LIT_SHADER", "LINE_SHADER", "POINT_SHADER", "INSTANCED_SHADER"]

LIT_SHADER = shaders.ShaderProgram(
    "attitude_sim_lit",
    [
        shaders.VertexShader(
            """
            uniform mat4 u_mvp;
            uniform mat3 u_normal;
            attribute vec4 a_position;
            attribute vec3 a_normal;
            attribute vec4 a_color;
            varying vec4 v_color;
            varying vec3 v_normal;
            void main() {
                v_normal = normalize(u_normal * a_normal);
                v_color = a_color;
                gl_Position = u_mvp * a_position;
            }
            """
        ),
        shaders.FragmentShader(
            """
            #ifdef GL_ES
            precision mediump float;
            #endif
            varying vec4 v_color;
            varying vec3 v_normal;
            void main() {
                vec3 n = normalize(v_normal);
                float key = max(dot(n, normalize(vec3(-0.4, 0.7, 0.6))), 0.0);
                float fill = max(dot(n, normalize(vec3(0.6, -0.2, 0.8))), 0.0);
                vec3 rgb = v_color.rgb * (0.32 + 0.6 * key + 0.25 * fill);
                gl_FragColor = vec4(min(rgb, vec3(1.0)), v_color.a);
            }
            """
        ),
    ],
)
"""Flat colours lit by a camera-fixed key light (upper left) and a weak fill light."""

LINE_SHADER = shaders.ShaderProgram(
    "attitude_sim_lines",
    [
        shaders.VertexShader(
            """
            uniform mat4 u_mvp;
            attribute vec4 a_position;
            attribute vec4 a_color;
            varying vec4 v_color;
            void main() {
                v_color = a_color;
                gl_Position = u_mvp * a_position;
            }
            """
        ),
        shaders.FragmentShader(
            """
            #ifdef GL_ES
            precision mediump float;
            #endif
            varying vec4 v_color;
            void main() {
                gl_FragColor = v_color;
            }
            """
        ),
    ],
)
"""Unlit per-vertex colours, for lines."""

POINT_SHADER = shaders.ShaderProgram(
    "attitude_sim_points",
    [
        shaders.VertexShader(
            """
            #version 120
            uniform mat4 u_mvp;
            attribute vec4 a_position;
            attribute vec4 a_color;
            attribute float a_size;
            varying vec4 v_color;
            void main() {
                v_color = a_color;
                gl_PointSize = a_size;
                gl_Position = u_mvp * a_position;
            }
            """
        ),
        shaders.FragmentShader(
            """
            #version 120
            varying vec4 v_color;
            void main() {
                vec2 d = gl_PointCoord - vec2(0.5);
                float r2 = dot(d, d);
                if (r2 > 0.25) discard;
                // a dark rim, so that neighbouring points of one colour stay apart
                gl_FragColor = vec4(v_color.rgb * (r2 > 0.16 ? 0.45 : 1.0), v_color.a);
            }
            """
        ),
    ],
)
"""Round points of per-vertex colour and size (pixels) with a dark rim."""

INSTANCED_SHADER = shaders.ShaderProgram(
    "attitude_sim_instanced",
    [
        shaders.VertexShader(
            """
            uniform mat4 u_mvp;
            uniform mat3 u_normal;
            attribute vec3 a_position;
            attribute vec3 a_normal;
            attribute vec4 a_color;
            attribute vec3 a_offset;
            attribute vec3 a_axis_x;
            attribute vec3 a_axis_y;
            attribute vec3 a_axis_z;
            attribute vec4 a_tint;
            varying vec4 v_color;
            varying vec3 v_normal;
            void main() {
                mat3 turn = mat3(a_axis_x, a_axis_y, a_axis_z);
                v_normal = normalize(u_normal * (turn * a_normal));
                // the tint replaces the mesh's greys (weight: 1 - chroma), keeps its colours (lights, marks)
                float high = max(a_color.r, max(a_color.g, a_color.b));
                float low = min(a_color.r, min(a_color.g, a_color.b));
                v_color = vec4(mix(a_color.rgb, a_tint.rgb * high, a_tint.a * (1.0 - (high - low))), a_color.a);
                gl_Position = u_mvp * vec4(a_offset + turn * a_position, 1.0);
            }
            """
        ),
        LIT_SHADER.shaders[1],
    ],
)
""":data:`LIT_SHADER`'s lighting for copies of one mesh, each placed by its per-instance offset and axes and
tinted by its per-instance colour: the mesh's grey parts take the tint (scaled by their brightness), its
coloured parts stay as they are (weight ``1 - chroma``), and a tint of alpha 0 leaves the mesh's colours."""
