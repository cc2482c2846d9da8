"""Courses: a teacher's YAML course file becomes Course, Chapter and ChapterItem individuals (``course_file``)."""
