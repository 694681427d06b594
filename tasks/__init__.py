"""doit tasks of the tcore pipeline, one module per stage (see dodo.py)."""
