"""The tool call in a turn: policy, safety, sandbox views, faults, events, preview, TurnDiff,
options, review, hooks, the stages, the call, undo and the turn itself.

Imports from ``parse`` and ``apply``; within the floor, the stages know no call and the call
no turn (they name what they use of them): ``stages`` <- ``call`` <- ``undo_conflicts``
<- ``undo_call`` <- ``undo`` <- ``turn``."""
