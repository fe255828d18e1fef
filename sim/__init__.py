"""attitude-sim's simulation library: Hoffmann's quaternion rigid-body dynamics.

Plain Python and numpy; never imports Qt. Every formula cites the seed
equation it implements: "Hoffmann (x.y)" is G. Hoffmann, *Application of
Quaternions* (1978/2002); "Sherif (n)" is Sherif, Nachbagauer, Steiner,
*On the rotational equations of motion in rigid body dynamics when using
Euler parameters*, Nonlinear Dyn. 2015.

Conventions (the one place they are stated; README repeats them)
----------------------------------------------------------------
* A quaternion is ``Q = (q1, q2, q3, q4)`` with ``q4`` the **scalar** part,
  multiplied by Hoffmann's product (1.7) and conjugated by (1.10).
* ``Q`` describes the **coordinate transformation** from inertial axes
  (x north, y east, z down) to body axes (x nose, y right wing, z down)::

      x_B = C(Q) x_I            C = cayley(Q), Hoffmann (2.12)

  A coordinate-system rotation by angle ``a`` about unit axis ``n`` is
  ``Q = cos(a/2) - n sin(a/2)`` (Hoffmann (2.1)).  In scipy's terms,
  ``C(Q) = Rotation.from_euler('ZYX', [psi, theta, phi]).as_matrix().T`` and
  ``Q`` is the conjugate of that Rotation's ``as_quat()`` (x, y, z, w).
* Aircraft angles: yaw ``psi``, pitch ``theta``, roll ``phi``, sequence z-y-x
  (Hoffmann section 7).  Classical Euler angles z-x-z (section 6).
* Kinematics: ``dQ/dt = 1/2 V(Q)^T [w; 0]`` and ``[w; 0] = 2 V(Q) dQ/dt`` with
  ``V`` from Hoffmann (3.26); ``w`` is the body rate in body axes (rad/s).
* Inertia tensor with Hoffmann's signs on the products:
  ``J = [[Jxx, -Jxy, -Jxz], [-Jxy, Jyy, -Jyz], [-Jxz, -Jyz, Jzz]]``.
* Torques are in body axes.  Angles are radians inside ``sim`` unless a name
  ends in ``_deg``.
* Reaction wheels (:mod:`sim.core.wheels`): ``J`` is the whole craft's, wheels
  locked; wheel ``i`` has a unit axis ``a_i``, axial inertia ``J_s,i`` and
  speed ``W_i`` relative to the body; its motor torque ``u_i`` acts on the
  wheel and ``-u_i a_i`` on the body; the total momentum
  ``H = J w + sum a_i J_s,i W_i``.
* The orbit frame (:mod:`sim.world.environment`): z to nadir, x along the
  velocity, the inertial axes at ``t = 0``; nadir ``(-sin nt, 0, cos nt)``.

The face (docs/API.md lists it): every name below is imported from ``sim``
itself, ``from sim import Settings, cayley``, and loaded on first use (PEP 562
``__getattr__``), so ``import sim`` costs nothing and a name loads only its
own module.  Each name is unique; where two rooms use one name the face
renames it (``load_scenario``, ``load_shape``, ``sweep_summary``).  Beside
``sim``, app/ may import ``sim.api``, ``sim.lab`` and ``sim.sweep``, never the
rooms behind them (the ``one-door`` contract in pyproject.toml);
tools/one_door.py rewrites app's imports to go through the face.
"""

from importlib import import_module

#: name -> ``"module"`` (the attribute of that name) or ``"package:attribute"`` (renamed on the face; the
#: attribute may be a module of that package).
_FACE = {
    # sim.core.algebra
    "norm2_Q": "sim.core.algebra",
    # sim.core.angles
    "aircraft_angles": "sim.core.angles",
    "cayley_entries": "sim.core.angles",
    # sim.core.body
    "Body": "sim.core.body",
    "HOFFMANN_INERTIA": "sim.core.body",
    # sim.core.collector
    "collect_due": "sim.core.collector",
    "own_collection": "sim.core.collector",
    "release_collection": "sim.core.collector",
    # sim.core.control
    "CONTROLLERS": "sim.core.control",
    # sim.core.integrators
    "FULL_QUAT_FORMS": "sim.core.integrators",
    "INTEGRATORS": "sim.core.integrators",
    # sim.core.interpolation
    "slerp": "sim.core.interpolation",
    # sim.core.norm
    "NORM_MODES": "sim.core.norm",
    # sim.core.quaternion
    "as_aircraft_angles": "sim.core.quaternion",
    "as_euler_zxz": "sim.core.quaternion",
    "cayley": "sim.core.quaternion",
    "conjugate": "sim.core.quaternion",
    "from_aircraft_angles": "sim.core.quaternion",
    "from_axis_angle": "sim.core.quaternion",
    "from_euler_zxz": "sim.core.quaternion",
    "product": "sim.core.quaternion",
    "v_matrix": "sim.core.quaternion",
    # sim.core.tumble
    "PeriodWatch": "sim.core.tumble",
    "torque_free": "sim.core.tumble",
    # sim.core.cmg
    "spin_transverse": "sim.core.cmg",
    "cluster_momentum": "sim.core.cmg",
    # sim.core.cmg_surfaces
    "envelope_point": "sim.core.cmg_surfaces",
    "singular_section": "sim.core.cmg_surfaces",
    "sign_sets": "sim.core.cmg_surfaces",
    "singularity_kind": "sim.core.cmg_surfaces",
    "ELLIPTIC": "sim.core.cmg_surfaces",
    "HYPERBOLIC": "sim.core.cmg_surfaces",
    # sim.core.thrusters, sim.model.thruster_drive (issue 45)
    "MODULATIONS": "sim.core.thrusters",
    "limit_cycle": "sim.core.thrusters",
    "pwpf_static": "sim.core.thrusters",
    "thruster_columns": "sim.model.thruster_drive",
    # sim.core.wheels
    "layout_axes": "sim.core.wheels",
    "LAYOUTS": "sim.core.wheels",
    "PYRAMID_TILT_DEG": "sim.core.wheels",
    # sim.world.environment
    "DISTURBANCE_AXES": "sim.world.environment",
    "orbit_quaternion": "sim.world.environment",
    "orbit_rate": "sim.world.environment",
    # sim.world.frames
    "ecef_to_eci": "sim.world.frames",
    "geodetic_to_ecef": "sim.world.frames",
    "lvlh": "sim.world.frames",
    "precession": "sim.world.frames",
    # sim.world.orbit
    "R_EARTH_KM": "sim.world.orbit",
    # sim.world.time
    "DAY": "sim.world.time",
    "julian_centuries_tt": "sim.world.time",
    "TT_MINUS_UTC": "sim.world.time",
    # sim.gnc.magnetic
    "avanzini_giulietti_gain": "sim.gnc.magnetic",
    "BDOT_LAWS": "sim.gnc.magnetic",
    # sim.gnc.pointing
    "POINTING_MODES": "sim.gnc.pointing",
    # sim.model.cmg_settings
    "CMG_LAWS": "sim.model.cmg_settings",
    "CMG_CLUSTERS": "sim.model.cmg_settings",
    # sim.model.controls
    "input_of": "sim.model.controls",
    # sim.model.events
    "reached": "sim.model.events",
    "steps_until": "sim.model.events",
    "TIME_TOLERANCE": "sim.model.events",
    # sim.model.navigation
    "ESTIMATORS": "sim.model.navigation",
    "FLY_ON": "sim.model.navigation",
    # sim.model.rows
    "COLUMNS": "sim.model.rows",
    "columns_of": "sim.model.rows",
    "HISTORY_COLUMNS": "sim.model.rows",
    "orbit_frame_column": "sim.model.rows",
    "Snapshot": "sim.model.rows",
    # sim.model.settings
    "axis_ratios": "sim.model.settings",
    "carried_to": "sim.model.settings",
    "damper_warning": "sim.model.settings",
    "KEYS": "sim.model.settings",
    "Settings": "sim.model.settings",
    "SettingsError": "sim.model.settings",
    "stability_warning": "sim.model.settings",
    "validate": "sim.model.settings",
    # sim.model.shape
    "BUILTINS": "sim.model.shape",
    "DEFAULT_BODY": "sim.model.shape",
    "load_shape": "sim.model.shape:load",
    "mass_properties": "sim.model.shape",
    "MESH_SUFFIXES": "sim.model.shape",
    "MESH_UNITS": "sim.model.shape",
    "ShapeError": "sim.model.shape",
    # sim.model.simulation
    "Simulation": "sim.model.simulation",
    "SimulationFault": "sim.model.simulation",
    # sim.io.conventions
    "Convention": "sim.io.conventions",
    "DIRECTIONS": "sim.io.conventions",
    "NATIVE": "sim.io.conventions",
    "ORDERS": "sim.io.conventions",
    "table_converter": "sim.io.conventions",
    # sim.io.costs
    "BODY_STEP_SECONDS": "sim.io.costs",
    "CLUSTER_LOST_SECONDS": "sim.io.costs",
    "ROUGH_BODY_STEP_SECONDS": "sim.io.costs",
    "ROUGH_SETUP_SECONDS": "sim.io.costs",
    # sim.io.files
    "check_outputs": "sim.io.files",
    "Output": "sim.io.files",
    "OutputRefused": "sim.io.files",
    "PartialFile": "sim.io.files",
    "whole_path": "sim.io.files",
    "write_whole": "sim.io.files",
    # sim.io.limits
    "as_integer": "sim.io.limits",
    "as_number": "sim.io.limits",
    "check_cost": "sim.io.limits",
    "check_workers": "sim.io.limits",
    "duration_text": "sim.io.limits",
    "LIMITS": "sim.io.limits",
    "RunTooLong": "sim.io.limits",
    "usable_cores": "sim.io.limits",
    # sim.io.link
    "decode_input": "sim.io.link",
    "encode_state": "sim.io.link",
    "INPUT_KEYS": "sim.io.link",
    "LinkMessageError": "sim.io.link",
    "REASONS": "sim.io.link",
    # sim.io.reading
    "FileRefused": "sim.io.reading",
    "kind_of": "sim.io.reading",
    "read_regular": "sim.io.reading",
    # sim.ensemble
    "Ensemble": "sim.ensemble",
    "EnsembleSpec": "sim.ensemble",
    # sim.ensemble.info
    "EnsembleFrame": "sim.ensemble.info",
    "frozen_copy": "sim.ensemble.info",
    # sim.ensemble.sampling
    "check_orbit_spread": "sim.ensemble.sampling",
    # sim.run.aem
    "attitudes": "sim.run.aem",
    "aem_text": "sim.run.aem",
    "AttitudeFileError": "sim.run.aem",
    "read_aem": "sim.run.aem",
    "run_epoch": "sim.run.aem",
    # sim.run.context
    "check_inputs": "sim.run.context",
    # sim.run.inputs
    "Reset": "sim.run.inputs",
    "SettingChange": "sim.run.inputs",
    "typed": "sim.run.inputs",
    # sim.run.playback
    "Playback": "sim.run.playback",
    # sim.run.recording
    "load_recording": "sim.run.recording",
    "Recorder": "sim.run.recording",
    "RecordingError": "sim.run.recording",
    "replay": "sim.run.recording",
    # sim.run.runner
    "Batch": "sim.run.runner",
    "COMPARE_COLUMNS": "sim.run.runner",
    "ENSEMBLE": "sim.run.runner",
    "live_ensemble": "sim.run.runner",
    "MAIN": "sim.run.runner",
    "Runner": "sim.run.runner",
    # sim.run.scenario
    "builtin_names": "sim.run.scenario",
    "Event": "sim.run.scenario",
    "load_scenario": "sim.run.scenario:load",
    "resolve": "sim.run.scenario",
    "Scenario": "sim.run.scenario",
    "ScenarioError": "sim.run.scenario",
    # sim.run.scenario_writer
    "save": "sim.run.scenario_writer",
    # sim.run.stk
    "stk_attitude_text": "sim.run.stk",
    # sim.sweep.summary
    "sweep_summary": "sim.sweep.summary:summary",
}

__all__ = sorted(_FACE)


def _target(name: str) -> tuple[str, str]:
    """The module and attribute behind a name of the face."""
    module, _, attribute = _FACE[name].partition(":")
    return module, attribute or name


def __getattr__(name: str):
    """Load a name of the face from its module on first use (PEP 562), then keep it here."""
    if name not in _FACE:
        raise AttributeError(f"module 'sim' has no attribute {name!r}")
    module, attribute = _target(name)
    try:
        value = getattr(import_module(module), attribute)
    except AttributeError:   # a module on the face ("sim.core:quaternion") not imported yet
        value = import_module(f"{module}.{attribute}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_FACE))
