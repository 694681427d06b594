#!/usr/bin/env bash
# Stage every generated file (git add -f, they are ignored) so that after editing a
# generator or template and running `doit`, `git diff` shows what changed in the output.
# Works from any folder of the repository. Undo with git_reset_generated_dirs.sh.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/generated_dirs.sh"

add_dir() {
  if [ -d "$1" ]; then
    git add -f -- "$1"
    echo "staged $1"
  else
    echo "skipped $1 (not generated yet: run doit)"
  fi
}
each_generated_dir add_dir
