"""The patch as text: its model, the parser, the streaming parser, the shell form.

Nothing here touches the disk; nothing here imports from ``apply`` or ``turn``."""
