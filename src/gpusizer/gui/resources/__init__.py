"""Package data of the window (the app icon), read with importlib.resources so that it is
found in a source checkout, an installed wheel and a frozen bundle alike."""
