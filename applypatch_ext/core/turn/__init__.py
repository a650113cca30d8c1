"""The tool call in a turn: policy, safety, sandbox views, faults, events, preview,
TurnDiff, options, the call's result and the turn itself.

Imports from ``parse`` and ``apply``."""
