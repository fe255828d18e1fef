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
"""

from sim.core.quaternion import (
    as_aircraft_angles,
    as_euler_zxz,
    cayley,
    conjugate,
    from_aircraft_angles,
    from_axis_angle,
    from_euler_zxz,
    product,
    v_matrix,
)
from sim.core.interpolation import slerp
from sim.core.body import Body
from sim.model.simulation import Simulation
from sim.model.rows import Snapshot
from sim.ensemble import Ensemble, EnsembleSpec

__all__ = [
    "Body",
    "Ensemble",
    "EnsembleSpec",
    "Simulation",
    "Snapshot",
    "as_aircraft_angles",
    "as_euler_zxz",
    "cayley",
    "conjugate",
    "from_aircraft_angles",
    "from_axis_angle",
    "from_euler_zxz",
    "product",
    "slerp",
    "v_matrix",
]
