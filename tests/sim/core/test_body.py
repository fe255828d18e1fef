"""The rigid body (sim.body): inertia tensor layout and signs, validation, energy, momentum.

References: the inertia tensor of point masses, I = sum m (|r|^2 I3 - r r^T),
with Hoffmann's products Jxy = sum m x y (his "Jxy = Integral x*y*dm"),
numpy's eigen-solvers, and the definitions T = 1/2 w.J w, L = J w.
"""

import math

import numpy as np
import pytest

from sim.core.body import HOFFMANN_INERTIA, Body, inertia_tensor

EPS = np.finfo(float).eps


def point_mass_components(masses, points):
    """Hoffmann's six components (Jxx, Jyy, Jzz, Jxy, Jxz, Jyz) of point masses."""
    jxx = jyy = jzz = jxy = jxz = jyz = 0.0
    for m, (x, y, z) in zip(masses, points):
        jxx += m * (y * y + z * z)
        jyy += m * (x * x + z * z)
        jzz += m * (x * x + y * y)
        jxy += m * x * y
        jxz += m * x * z
        jyz += m * y * z
    return jxx, jyy, jzz, jxy, jxz, jyz


def point_mass_tensor(masses, points):
    """The physical tensor sum m (|r|^2 I - r r^T)."""
    j = np.zeros((3, 3))
    for m, r in zip(masses, points):
        r = np.asarray(r, dtype=float)
        j += m * ((r @ r) * np.eye(3) - np.outer(r, r))
    return j


# ------------------------------------------------------------ tensor layout
def test_inertia_tensor_layout_and_signs():
    j = inertia_tensor(2.0, 3.0, 4.0, 0.1, 0.2, 0.3)
    np.testing.assert_array_equal(j, [[2.0, -0.1, -0.2], [-0.1, 3.0, -0.3], [-0.2, -0.3, 4.0]])


def test_inertia_tensor_hoffmann_aircraft():
    # Appendix A: Jxx=0.6, Jyy=1, Jzz=1.5, Jxy=0, Jxz=0.2, Jyz=0 (FillJ33)
    np.testing.assert_array_equal(Body().J, [[0.6, 0.0, -0.2], [0.0, 1.0, 0.0], [-0.2, 0.0, 1.5]])
    assert Body().components == HOFFMANN_INERTIA


@pytest.mark.parametrize("seed", range(8))
def test_inertia_tensor_matches_point_masses(seed):
    # Hoffmann's sign convention makes J the physical tensor when the products
    # are the plain integrals of x y, x z, y z.
    rng = np.random.default_rng(seed)
    masses = rng.uniform(0.1, 2.0, 5)
    points = rng.normal(size=(5, 3))
    comps = point_mass_components(masses, points)
    np.testing.assert_allclose(inertia_tensor(*comps), point_mass_tensor(masses, points), rtol=1e-14, atol=1e-14)
    body = Body(comps)
    np.testing.assert_allclose(body.J, point_mass_tensor(masses, points), rtol=1e-14, atol=1e-14)


def test_body_inverse_and_row_tuples():
    b = Body((0.8, 1.2, 1.7, 0.05, 0.1, -0.07))
    np.testing.assert_allclose(b.J @ b.J_inv, np.eye(3), atol=8 * EPS)
    assert b.j_rows == tuple(b.J.ravel())
    np.testing.assert_allclose(b.j_inv_rows, b.J_inv.ravel(), rtol=0, atol=0)


def test_body_components_converted_to_floats():
    b = Body((1, 2, 2, 0, 0, 0))
    assert all(type(c) is float for c in b.components)


def test_body_is_frozen():
    b = Body()
    with pytest.raises(AttributeError):
        b.components = (1.0, 1.0, 1.0, 0.0, 0.0, 0.0)


# ---------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    "comps",
    [
        (1.0, 1.0, 1.0, 2.0, 0.0, 0.0),   # eigenvalues -1, 1, 3
        (-1.0, 2.0, 2.0, 0.0, 0.0, 0.0),
        (0.0, 1.0, 1.0, 0.0, 0.0, 0.0),   # singular
        (1.0, 1.0, 2.0, 1.0, 0.0, 0.0),   # eigenvalue 0
    ],
    ids=["negative_eigenvalue", "negative_moment", "zero_moment", "singular_product"],
)
def test_inertia_tensor_not_positive_definite_raises(comps):
    with pytest.raises(ValueError, match="not positive definite"):
        inertia_tensor(*comps)
    with pytest.raises(ValueError, match="not positive definite"):
        Body(comps)


@pytest.mark.parametrize(
    "comps",
    [
        (1.0, 1.0, 3.0, 0.0, 0.0, 0.0),   # 3 > 1 + 1
        (1.0, 5.0, 1.0, 0.0, 0.0, 0.0),
        (0.1, 0.1, 0.2 * (1 + 1e-9), 0.0, 0.0, 0.0),  # just beyond a lamina
    ],
    ids=["rod_z", "rod_y", "just_beyond_lamina"],
)
def test_inertia_tensor_triangle_inequality_raises(comps):
    with pytest.raises(ValueError, match="triangle inequality"):
        inertia_tensor(*comps)


@pytest.mark.parametrize(
    "comps",
    [(1.0, 2.0, 3.0, 0.0, 0.0, 0.0), (0.5, 0.5, 1.0, 0.0, 0.0, 0.0)],
    ids=["lamina", "square_lamina"],
)
def test_inertia_tensor_lamina_accepted(comps):
    # a flat plate has I3 = I1 + I2 exactly: the boundary is physical
    Body(comps)


def test_inertia_tensor_rotated_triangle_check_uses_principal_moments():
    # a rod-like tensor (principal 1, 1, 3) in rotated axes is refused, though
    # its diagonal (Jxx, Jyy, Jzz) alone satisfies the triangle inequality
    c = math.cos(0.7)
    s = math.sin(0.7)
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]) @ np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    j = rot @ np.diag([1.0, 1.0, 3.0]) @ rot.T
    comps = (j[0, 0], j[1, 1], j[2, 2], -j[0, 1], -j[0, 2], -j[1, 2])
    assert j[0, 0] <= j[1, 1] + j[2, 2] and j[1, 1] <= j[0, 0] + j[2, 2] and j[2, 2] <= j[0, 0] + j[1, 1]
    with pytest.raises(ValueError, match="triangle inequality"):
        Body(comps)


@pytest.mark.parametrize("index", range(6))
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "minus_inf"])
def test_inertia_tensor_nonfinite_raises(index, bad):
    comps = list(HOFFMANN_INERTIA)
    comps[index] = bad
    name = ("Jxx", "Jyy", "Jzz", "Jxy", "Jxz", "Jyz")[index]
    with pytest.raises(ValueError, match=f"{name}=.*not finite"):
        Body(tuple(comps))


@pytest.mark.parametrize("bad", ["abc", None, [1.0]], ids=["string", "none", "list"])
def test_inertia_tensor_not_a_number_raises(bad):
    with pytest.raises(ValueError, match="Jyy=.*not a number"):
        inertia_tensor(1.0, bad, 1.0)


@pytest.mark.parametrize("comps", [(), (1.0, 1.0, 1.0), (1.0,) * 5, (1.0,) * 7], ids=["zero", "three", "five", "seven"])
def test_body_wrong_count_raises(comps):
    with pytest.raises(ValueError, match="needs 6 values"):
        Body(comps)


# ------------------------------------------------------- principal moments
@pytest.mark.parametrize(
    "comps",
    [HOFFMANN_INERTIA, (1.0, 1.0, 1.0, 0.0, 0.0, 0.0), (0.8, 1.2, 1.7, 0.05, 0.1, -0.07),
     (2.0, 3.0, 4.0, 0.5, -0.3, 0.2)],
    ids=["hoffmann", "sphere", "general", "large_products"],
)
def test_principal_moments_match_numpy_eig(comps):
    b = Body(comps)
    expected = np.sort(np.linalg.eigvals(b.J).real)
    np.testing.assert_allclose(b.principal_moments, expected, rtol=1e-13)
    axes = b.principal_axes
    np.testing.assert_allclose(axes.T @ axes, np.eye(3), atol=1e-14)
    np.testing.assert_allclose(b.J @ axes, axes * b.principal_moments, atol=1e-13)
    # trace and determinant invariants
    assert b.principal_moments.sum() == pytest.approx(np.trace(b.J), rel=1e-14)
    assert np.prod(b.principal_moments) == pytest.approx(np.linalg.det(b.J), rel=1e-13)


def test_principal_moments_hoffmann_closed_form():
    # x-z block [[0.6, -0.2], [-0.2, 1.5]]: (2.1 -+ sqrt(0.81 + 0.16)) / 2, and Jyy = 1
    r = math.sqrt(0.9 ** 2 + 0.4 ** 2)
    expected = sorted([(2.1 - r) / 2, 1.0, (2.1 + r) / 2])
    np.testing.assert_allclose(Body().principal_moments, expected, rtol=1e-14)


# ------------------------------------------------------ energy and momentum
@pytest.mark.parametrize("seed", range(5))
def test_energy_and_angular_momentum(seed):
    rng = np.random.default_rng(seed)
    b = Body((0.8, 1.2, 1.7, 0.05, 0.1, -0.07))
    w = rng.normal(size=3)
    jw = np.einsum("ij,j->i", b.J, w)
    np.testing.assert_allclose(b.angular_momentum(w), jw, rtol=1e-15)
    assert b.energy(w) == pytest.approx(0.5 * float(np.einsum("i,i->", w, jw)), rel=1e-14)
    assert b.energy(w) > 0
    # in principal axes T = 1/2 sum I_k (w . e_k)^2
    wp = b.principal_axes.T @ w
    assert b.energy(w) == pytest.approx(0.5 * np.sum(b.principal_moments * wp ** 2), rel=1e-13)


def test_energy_from_point_masses():
    # T = sum 1/2 m |w x r|^2 for a rigid set of point masses
    rng = np.random.default_rng(11)
    masses = rng.uniform(0.5, 1.5, 6)
    points = rng.normal(size=(6, 3))
    b = Body(point_mass_components(masses, points))
    w = rng.normal(size=3)
    t = sum(0.5 * m * np.sum(np.cross(w, r) ** 2) for m, r in zip(masses, points))
    h = sum(m * np.cross(r, np.cross(w, r)) for m, r in zip(masses, points))
    assert b.energy(w) == pytest.approx(t, rel=1e-13)
    np.testing.assert_allclose(b.angular_momentum(w), h, rtol=1e-13, atol=1e-13)


def test_euler_rhs_matches_euler_equations():
    # J dw/dt = T - w x J w, Hoffmann (4.3); for a diagonal tensor this is the
    # textbook form in Appendix A, e.g. dwx/dt = (wy wz (Jy - Jz) + Tx) / Jx.
    b = Body((0.7, 1.1, 1.6, 0.0, 0.0, 0.0))
    jx, jy, jz = 0.7, 1.1, 1.6
    w = np.array([0.4, -1.3, 0.8])
    t = np.array([0.2, 0.5, -0.3])
    expected = [(w[1] * w[2] * (jy - jz) + t[0]) / jx,
                (w[2] * w[0] * (jz - jx) + t[1]) / jy,
                (w[0] * w[1] * (jx - jy) + t[2]) / jz]
    np.testing.assert_allclose(b.euler_rhs(w, t), expected, rtol=1e-14)
    full = Body((0.8, 1.2, 1.7, 0.05, 0.1, -0.07))
    np.testing.assert_allclose(full.J @ full.euler_rhs(w, t), t - np.cross(w, full.J @ w), rtol=1e-13, atol=1e-15)
