"""Every error class a user may catch is exported from `polycuda` (issue 44, point 4), and
lives in polycuda/errors.py (one module for all of them)."""

import inspect

import polycuda
from polycuda import errors


def test_every_error_class_is_exported_from_polycuda():
    classes = [c for _, c in inspect.getmembers(errors, inspect.isclass)
               if c.__module__ == errors.__name__ and issubclass(c, (Exception, Warning))]
    assert len(classes) >= 15
    for c in classes:
        assert getattr(polycuda, c.__name__) is c and c.__name__ in polycuda.__all__
    assert issubclass(polycuda.OutOfBoundsError, polycuda.UserError)
