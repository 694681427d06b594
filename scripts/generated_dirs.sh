# Sourced by git_add_generated_dirs.sh and git_reset_generated_dirs.sh:
# cd to the repository root and call `each_generated_dir FUNC` for every folder
# listed in generated_dirs.txt (comments and blank lines skipped, spaces kept).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"

each_generated_dir() {
  local line dir
  while IFS= read -r line || [ -n "$line" ]; do
    dir=${line%%#*}
    dir="${dir#"${dir%%[![:space:]]*}"}"
    dir="${dir%"${dir##*[![:space:]]}"}"
    [ -n "$dir" ] || continue
    "$1" "$dir"
  done < generated_dirs.txt
}
