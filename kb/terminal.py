"""Text from the data, made safe to print on a terminal.

Game text, names and comments are a stranger's: an escape sequence in a PGN comment
(``ESC ] 0 ; …`` sets the window title, ``ESC [ 2 J`` clears the screen, others have done worse to
terminal emulators) or a right-to-left override would act on the user's terminal if printed as is.
``printable`` shows every control character (C0, DEL, C1) and the bidirectional overrides as a
visible escape (as Python's ``repr`` writes them), so what is printed is what the data says.
"""

from __future__ import annotations


def printable(text: str) -> str:
    """``text`` with every character Python does not call printable (controls, format characters
    such as the bidirectional overrides, separators other than the space) shown as its escape."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch == " " else repr(ch)[1:-1] for ch in text)
