"""The spacecraft's environment torques in compiled code, as a sum and one by one (issues 32, 42).

:func:`external` is :meth:`sim.model.loads.LoadModel.external`'s sum, the load of every stage of
:mod:`sim.model.advance_craft`'s step; :func:`torque_parts` is :meth:`sim.model.loads.LoadModel.parts`, the
history row's ``t_gg .. t_mag`` columns (:mod:`sim.model.craft_row`); :func:`law_command` and
:func:`craft_load` are the torque law's command and the load of a stage (the body torque, or with wheels
``T_ext`` and the motor torques), what the step integrates and the row reports.  Both take each term from the same
formula: the gravity gradient (:func:`sim.world.environment.gravity_gradient_torque` on the circular orbit,
:func:`sim.world.environment.gravity_gradient_at` on the propagated one, :func:`sim.world.orbit.mean_elements_state`
at the stage's time), solar radiation pressure and drag on the facets (:func:`sim.world.surfaces.srp_facets`,
:func:`sim.world.surfaces.drag_facets`) and the torquers' ``m x B`` (:func:`sim.gnc.magnetic.magnetic_torque`,
the field ``B + dB/dt (t - t_step)``).  ``world``, ``par``, ``flags``: :mod:`sim.model.advance_craft`'s layouts.
"""

from __future__ import annotations

from sim.core.advance import law_torque
from sim.core.angles import to_body
from sim.core.jit import jitable
from sim.core.jit_borrow import borrowed
from sim.core.wheel_program import motor_torques
from sim.gnc.magnetic import magnetic_torque
from sim.world.environment import disturbance_torque, gravity_gradient_at, gravity_gradient_torque
from sim.world.orbit import mean_elements_state
from sim.world.surfaces import drag_facets, relative_velocity, srp_facets

__all__ = ["external", "torque_parts", "law_command", "craft_load"]

_ZERO = (0.0, 0.0, 0.0)


@jitable(inline=True)
def _added(have, total, d):
    """``total + d``, or ``d`` for the first term (:meth:`sim.model.loads.LoadModel.external`'s sum)."""
    if have:
        return (total[0] + d[0], total[1] + d[1], total[2] + d[2])
    return d


@jitable(inline=True)
def _orbit_at(t, world, par):
    """``(r, v)`` (km, km/s, ECI) at a stage's time ``t``: the world's own at its time, else the orbit's
    (:meth:`sim.model.loads.LoadModel.stage`)."""
    if t == world[2]:
        return (world[3], world[4], world[5]), (world[6], world[7], world[8])
    x = mean_elements_state(par[49], par[50], par[51], par[52], par[53], par[54], par[55], par[56], par[57], t)
    return (x[0], x[1], x[2]), (x[3], x[4], x[5])


@jitable(inline=True)
def _gravity(q, t, world, par, flags, jr):
    """The gravity gradient at ``(q, t)``: on the circular orbit (``flags[9]`` 1) or the propagated one (2)."""
    if flags[9] == 1:
        return gravity_gradient_torque(q, t, par[35], jr)
    return gravity_gradient_at(q, _orbit_at(t, world, par)[0], jr, None)


@jitable
def _srp(q, world, table):
    """Solar radiation pressure on the facets; none in the umbra."""
    if not world[13] <= 0.0:  # the umbra: no pressure at all
        s = to_body(q, (world[9], world[10], world[11]))
        x = srp_facets(table, s[0], s[1], s[2], world[12])
        return (x[0], x[1], x[2])
    return _ZERO


@jitable
def _drag(q, t, world, par, table):
    """Drag on the facets, the air co-rotating with the Earth."""
    r, v = _orbit_at(t, world, par)
    u = to_body(q, relative_velocity((r[0] * 1e3, r[1] * 1e3, r[2] * 1e3), (v[0] * 1e3, v[1] * 1e3, v[2] * 1e3)))
    x = drag_facets(table, u[0], u[1], u[2], world[20])
    return (x[0], x[1], x[2])


@jitable
def _magnetic(q, t, world):
    """The torquers' dipole (``world``'s, held over the step) in the field of the stage's time."""
    h = t - world[2]
    b = to_body(q, (world[14] + world[17] * h, world[15] + world[18] * h, world[16] + world[19] * h))
    return magnetic_torque((world[21], world[22], world[23]), b)


@jitable(inline=True)
def external(q, t, world, par, flags, jr, table):
    """``(T_ext, any)``: the external torque at ``(q, t)`` in the order of
    :meth:`sim.model.loads.LoadModel.external`, and whether any term acts."""
    total = _ZERO
    have = False
    if flags[9] != 0:
        total, have = _gravity(q, t, world, par, flags, jr), True
    if flags[12] != 0:
        total, have = _added(have, total, _srp(q, world, table)), True
    if flags[13] != 0:
        total, have = _added(have, total, _drag(q, t, world, par, table)), True
    if flags[14] != 0:
        total, have = _added(have, total, _magnetic(q, t, world)), True
    if flags[10] != 0:
        d = disturbance_torque(q, t, (par[36], par[37], par[38]), par[39], flags[11] != 0)
        total, have = _added(have, total, d), True
    if flags[18] != 0:  # the thrusters' torque held over the step
        total, have = _added(have, total, (world[32], world[33], world[34])), True
    return total, have


@jitable
def torque_parts(q, t, world, par, flags, jr, table):
    """``(T_gg, T_srp, T_drag, T_mag)`` at ``(q, t)``, zeros for what is off (:meth:`sim.model.loads.LoadModel.parts`)."""
    gg = _gravity(q, t, world, par, flags, jr) if flags[9] != 0 else _ZERO
    srp = _srp(q, world, table) if flags[12] != 0 else _ZERO
    drag = _drag(q, t, world, par, table) if flags[13] != 0 else _ZERO
    mag = _magnetic(q, t, world) if flags[14] != 0 else _ZERO
    return gg, srp, drag, mag


@jitable(inline=True)
def law_command(q, w, world, par, flags):
    """The torque law's command at ``(q, w)``: :func:`sim.core.advance.law_torque` tracking the world's command
    quaternion, the dampers against ``w - w_c`` with a rate feed-forward; or, with ``world``'s ``held`` set, the
    law's torque at the estimate held over the step (fly_on = estimate)."""
    if world[35] != 0.0:
        return (world[36], world[37], world[38])
    wd = (w[0] - world[29], w[1] - world[30], w[2] - world[31]) if world[28] != 0.0 else w
    return law_torque(q, wd, (world[24], world[25], world[26], world[27]), par, flags)


@jitable
def craft_load(q, w, speeds, t, world, par, flags, jr, wheels, table, u):
    """The load of :meth:`sim.model.loads.LoadModel.__call__` at a stage (or the torque law alone): without
    wheels the body torque ``T_cmd + T_ext``, or ``T_ext`` with thrusters (they realise the law); with wheels
    ``T_ext``, the motor torques written into ``u``.  ``T_cmd`` is :func:`law_command`'s."""
    speeds, world, par, flags, wheels, table, u = borrowed((speeds, world, par, flags, wheels, table, u))
    e, have = (0.0, 0.0, 0.0), False
    if flags[16] != 0:
        e, have = external(q, t, world, par, flags, jr, table)
    if wheels.shape[0] == 0 and flags[18] != 0:
        return e
    command = law_command(q, w, world, par, flags)
    if wheels.shape[0] == 0:
        if have:
            return (command[0] + e[0], command[1] + e[1], command[2] + e[2])
        return command
    motor_torques(command, speeds, flags[15] != 0, wheels, u)
    return e
