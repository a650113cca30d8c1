"""What agents write, brought in: Codex session files (rollouts), Responses API items and
streams, and their replay through the pipeline.

Above the three floors: imports from ``turn`` (and below), never the other way."""
