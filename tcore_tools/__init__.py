"""tcore's build tools as an installed package (the `tcore` wheel ships them beside `tcore`):

* `tcore_tools.codegen`: the code generator (`tcore-generate-code`, in a checkout
  `python -m codegen.generate_code`), with its templates;
* `tcore_tools.hipify`: the CUDA-to-HIP translator (`tcore-hipify`, in a checkout
  `python -m hipify`), with its mapping tables;
* `tcore_tools.build_libtcore`: builds the C++ library of a tcore checkout
  (`tcore-build-libtcore`, in a checkout `python scripts/build_libtcore.py`).

In a checkout, codegen/ and hipify/ are the same code; pyproject.toml maps them here when
a wheel is made, so nothing is copied and nothing installs a generic top-level name."""
