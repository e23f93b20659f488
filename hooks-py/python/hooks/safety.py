"""The destructive-command checker of the safety module, with its built-in rules.

>>> from hooks import safety
>>> safety.check("rm -rf /", "/home/me/project").severity
'critical'
>>> safety.check("ls -la", "/home/me/project") is None
True
"""

from ._native import Denial
from ._native import safety_check as check

__all__ = ["Denial", "check"]
