"""The C extension's build; everything else about the package is in pyproject.toml.

``ext_modules`` here is setuptools' documented, stable way to build one (the ``ext-modules`` key
of ``[tool.setuptools]`` in pyproject.toml is marked experimental). ``optional=True``: where it
fails to build (no C compiler, not GCC or Clang), the install still succeeds and ranked search
runs on the pure-Python twin (skills_core/context/_words.py), which logs a warning once.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "skills_core.context._body_words",
            ["skills_core/context/_body_words.c"],
            optional=True,
        )
    ]
)
