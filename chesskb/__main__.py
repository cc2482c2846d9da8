"""``python -m chesskb`` is the ``chesskb`` command."""

from chesskb.service.cli import main

if __name__ == "__main__":
    main()
