"""The Jinja2 environment: templates hold the text, Python holds the logic."""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

TEMPLATE_DIR = Path(__file__).parent / "templates"


_cache_dir: str | None = None


def keep_compiled_templates(folder: str) -> None:
    """Keep the compiled templates in `folder` between runs (doit's state folder); call before
    the first render."""
    global _cache_dir
    if folder != _cache_dir:
        _cache_dir = folder
        environment.cache_clear()


@lru_cache(maxsize=None)
def environment():
    import jinja2  # imported on first render: a no-op doit run never pays for it

    class Environment(jinja2.Environment):
        # `x.name` of a dict (what the generators hand the templates) is its key, looked up first:
        # Jinja's order (the attribute, then the key) raised and caught an AttributeError for each
        # of the 500,000 lookups of PyTorch's tree (a tenth of the rendering time)
        def getattr(self, obj, attribute):
            if type(obj) is dict:
                try:
                    return obj[attribute]
                except KeyError:
                    pass
            return super().getattr(obj, attribute)

    bytecode_cache = None
    if _cache_dir:
        os.makedirs(_cache_dir, exist_ok=True)
        bytecode_cache = jinja2.FileSystemBytecodeCache(_cache_dir)
    return Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)),
        bytecode_cache=bytecode_cache,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render(name: str, **context: object) -> str:
    return environment().get_template(name).render(**context)
