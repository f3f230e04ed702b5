"""Entry script of the PyInstaller bundle: the same ``echo-desk`` command as the wheel's."""

from echo_desk.__main__ import main

if __name__ == "__main__":
    raise SystemExit(main())
