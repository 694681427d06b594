#!/usr/bin/env bash
# Unstage the generated files staged by git_add_generated_dirs.sh (the files stay on disk).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/generated_dirs.sh"

reset_dir() {
  if git rev-parse -q --verify HEAD >/dev/null; then
    git reset -q -- "$1" 2>/dev/null || true
  else
    git rm -r -q --cached --ignore-unmatch -- "$1" >/dev/null
  fi
  echo "unstaged $1"
}
each_generated_dir reset_dir
