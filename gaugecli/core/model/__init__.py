"""The model: the teacher, the student's parameters and its gauge (no files, no terminal)."""
