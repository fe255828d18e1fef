"""Move the flat tests/test_*.py into rooms (issue 41, item 6): tests/sim/<room>/, tests/app/<room>/, tests/project/.

The table below is the reviewed classification: a test goes where the code it tests lives; a test that imports
app (or needs Qt) goes under tests/app/; project-wide tests go to tests/project/. Run once from the repository root:
``python tools/rooms.py`` (uses ``git mv``).
"""

import subprocess
import sys
from pathlib import Path

PROJECT = """architecture docs packaging conftest hostile_cases soak bench_compare private_names one_door golden
kernel_cache single_source""".split()

ROOMS = {
    "sim/core": """aem_reader algebra atmosphere axis_error beta_along_the_normal body body_vectors cmg cmg_surfaces
command_sign_and_sharing control core_room discrete_steps elliptic euler_controller_axes gyrostat_equations
geometric_dexpinv integrators interpolation interrupts_say jit_cache_folder jit_codegen jit_loading kepler_equation kernels magnetic magnetorquers momentum_dumping_control multiplier
multiplier_inputs ops_flavour properties quaternion quaternion_columns rates_from_samples slerp_formulas
slerp_path_inputs stk_file sun thrusters torque_free wahba_solvers wheel_inertia_constants""",
    "sim/world": """beta disturbance_torque eclipse epoch_equality epoch_tt msis_density msis_world orbit pointing
precession_iau1976 state_to_elements target_elevation tle_reading world_columns world_on_columns""",
    "sim/gnc": """attitude_determination mekf mekf_normalisation rotation_vector_sign sensing sensors vector_inputs""",
    "sim/model": """advance advance_craft builtin_bodies control_refusals controls ensemble_results
ensemble_settling_under_elimination ensemble_surroundings ensemble_wheel_change environment estimation_timeline
external_torque_sum inside_out_mesh mesh_colours mesh_indices navigation_compiled navigation_loop navigation_models orbit_regression quest_weights_in_the_loop
settings settings_pickle settings_replace simulation snapshot_readouts stage_time_orbit stl_files sun_pointing_secondary_axis
surface_coefficients surface_file_checks surface_file_messages surface_file_reread surfaces typed_inputs
thruster_drive thruster_kernel user_torque_shown wheels_formulations wheels_momentum_under_elimination world_kernel""",
    "sim/ensemble": """ensemble ensemble_changes_midrun ensemble_compiled ensemble_info_pickle ensemble_orbit_loop
ensemble_nav_bodies ensemble_nav_orbit ensemble_thrusters magnetometer_fed_estimators orbit_spread_edges orbit_spread_small tracker_peak_torque""",
    "sim/run": """aem_mixed cubesat_year demos plan_and_progress plan_is_long playback_model recording_marks run_epoch runner
scenario thruster_scenarios""",
    "sim/io": """actuator_settings duration_units files limits_memory link_codec link_protocol output_files
output_refusals partial_file_commit size_text""",
    "sim/api": """face hostile_api""",
    "sim/lab": """drift_final lab_cost_gate lab_drift_cost""",
    "sim/sweep": """sweep_chunk_columns sweep_costs sweep_dask sweep_estimation_summary sweep_memory sweep_spread_domain
sweep_summary""",
    "app/cli": """api cli ensemble_magnetic ensemble_navigation ensemble_orbit formulations hostile
hostile_mechanisms interchange lab limits link magint mass_properties navigation playback
pointing_needs_controller recording round_trip start_up sweep thruster_flags wheels""",
    "app/window": """dialogs export keys magnetic_window orbit_readouts pace pointing_window scenario_writer
slider_walk video window window_cycle""",
    "app/view3d": """bodies_gui glitems orbit_view plumes viewer""",
    "app/plots": """compare_plots decimate estimation_sigma_curves estimation_window history
magnetic_tab_wheel_momentum period plot_values plots thruster_tab wheels_window window_fit window_history""",
    "app/ensemble": """ensemble_thrusters_window ensemble_view""",
    "app/controls": """devices_gui readouts stick switched_groups thrusters_group""",
    "app/flight": """engine ensemble_info events flight hostile_context worker""",
    "project": " ".join(PROJECT),
}


def table() -> dict[str, str]:
    """File name -> room folder (relative to tests/); each name once."""
    out: dict[str, str] = {}
    for room, names in ROOMS.items():
        for name in names.split():
            file = f"test_{name}.py"
            if file in out:
                raise SystemExit(f"{file} in two rooms: {out[file]} and {room}")
            out[file] = room
    return out


def main() -> int:
    tests = Path("tests")
    rooms = table()
    flat = sorted(p.name for p in tests.glob("test_*.py"))
    missing = [f for f in flat if f not in rooms]
    if missing:
        print("no room for:", *missing, file=sys.stderr)
        return 2
    for file, room in rooms.items():
        if not (tests / file).exists():
            continue
        folder = tests / room
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "mv", str(tests / file), str(folder / file)], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
