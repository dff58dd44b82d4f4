#!/bin/sh
# check-layers.sh - fail when a source file includes a header from a layer
# above its own, so data keeps flowing one way (README.md, "Layout").
#
#   sh tools/check-layers.sh [TOP]     check TOP/src and TOP/cmd (default .)
#                                      and the layout table of TOP/README.md
#   sh tools/check-layers.sh --self-test
#                                      prove the check catches the cycles an
#                                      older tree had (before the layers)
#
# A layer may include its own headers and those of any layer below it.
# Every file under src/ lives in a layer directory; a quoted include names
# its directory ("policy/policy.h"), so the layer of every edge is visible.

# Lowest first. Keep in step with the table in README.md.
LAYERS="base policy import lang cli workspace record jail supervise cmd main"

rank() {
	i=0
	for l in $LAYERS; do
		[ "$l" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo -1
}

# layer_of PATH: the layer a file (src/X/... or cmd/sbx/...) belongs to.
layer_of() {
	case $1 in
	cmd/*) echo main ;;
	src/*/*) d=${1#src/}; echo "${d%%/*}" ;;
	*) echo "" ;;
	esac
}

check_tree() {
	top=$1 bad=0
	files=$(cd "$top" && find src cmd -name '*.[ch]' | sort)
	for f in $files; do
		own=$(layer_of "$f")
		own_rank=$(rank "$own")
		if [ "$own_rank" -lt 0 ]; then
			echo "$f: not in a layer directory (one of: $LAYERS)"
			bad=1
			continue
		fi
		# shellcheck disable=SC2013
		grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$top/$f" |
		while IFS= read -r line; do
			n=${line%%:*}
			inc=$(echo "$line" | sed 's/^[^"]*"\([^"]*\)".*/\1/')
			case $inc in
			*/*) dep=${inc%%/*} ;;
			*) dep="" ;;
			esac
			dep_rank=$(rank "$dep")
			if [ "$dep_rank" -lt 0 ]; then
				echo "$f:$n: #include \"$inc\" does not name a layer directory"
				echo x
			elif [ "$dep_rank" -gt "$own_rank" ]; then
				echo "$f:$n: layer '$own' includes \"$inc\" from layer '$dep' above it"
				echo x
			fi
		done > "$tmp/out"
		grep -v '^x$' "$tmp/out"
		grep -q '^x$' "$tmp/out" && bad=1
	done
	return $bad
}

# The README's layout table names the layers in the same order, and every
# layer directory that exists has its row.
check_readme() {
	rows=$(sed -n 's/^| \([a-z]*\) | `\(src\/[a-z]*\/\|cmd\/sbx\/main.c\)` |.*/\1/p' "$1/README.md" | tr '\n' ' ')
	if [ "$rows" != "$LAYERS " ]; then
		echo "README.md: the layout table lists layers '$rows', tools/check-layers.sh '$LAYERS'"
		return 1
	fi
	for d in "$1"/src/*/; do
		l=$(basename "$d")
		[ "$(rank "$l")" -ge 0 ] || { echo "src/$l/: a directory that is not a layer"; return 1; }
	done
}

self_test() {
	t=$tmp/tree
	mkdir -p "$t/src/base" "$t/src/lang" "$t/src/cli" "$t/src/workspace" \
		"$t/src/record" "$t/src/jail" "$t/cmd/sbx"
	echo '#include "base/err.h"' > "$t/src/cli/cli.c"
	echo '#include "base/err.h"' > "$t/cmd/sbx/main.c"
	check_tree "$t" > /dev/null || { echo "self-test: a clean tree failed"; return 1; }
	fail=0
	# Edges an older tree had before the layers, each of which must be caught.
	for edge in "src/workspace/artifacts.c record/result.h" \
	            "src/lang/lang.c cli/cli.h" \
	            "src/lang/lang.c supervise/supervise.h" \
	            "src/jail/init.c cmd/commands.h" \
	            "src/err.c base/err.h" \
	            "src/record/result.c result.h" \
	            "src/jail/spawn.c supervise/supervise.h" \
	            "src/supervise/supervise.c cmd/commands.h" \
	            "src/policy/override.c cli/cli.h"; do
		set -- $edge
		cp -r "$t" "$t.case"
		mkdir -p "$t.case/$(dirname "$1")"
		echo "#include \"$2\"" >> "$t.case/$1"
		if check_tree "$t.case" > /dev/null; then
			echo "self-test: $1 including $2 was not caught"
			fail=1
		fi
		rm -rf "$t.case"
	done
	printf '| cli | `src/cli/` | x |\n| base | `src/base/` | x |\n' > "$t/README.md"
	if check_readme "$t" > /dev/null; then
		echo "self-test: a README table out of order was not caught"
		fail=1
	fi
	[ $fail = 0 ] && echo "check-layers self-test: ok"
	return $fail
}

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
if [ "${1:-}" = --self-test ]; then
	self_test
else
	check_tree "${1:-.}" && check_readme "${1:-.}" && echo "check-layers: ok ($LAYERS)"
fi
