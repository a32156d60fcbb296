"""The Hardware tab's parts (the tab itself is gui/charts/hardware.py): its settings, the
background search, the table and the settings bar."""
