"""Package data: meshes and scenario files, found through importlib.resources."""
