#!/bin/sh
# Comments and shipped text stand alone: they say the reason in place and
# never point at what a later maintainer cannot see, such as a tracker
# number ("issue 17"), a numbered item of one ("item 3"), or the project's
# planning documents (spec.md, requirements.md, "spec §4").  History
# belongs in commit messages.
#
#   sh tools/check-comments.sh [TOP]   check the tracked files of TOP (default .)
#   sh tools/check-comments.sh --self-test
#                                      prove each kind of reference is caught
#
# Exit 0 when no tracked file holds one, 1 with each hit as FILE:LINE: TEXT.
set -eu

pattern='\bissues? #?[0-9]+|\bitems? #?[0-9]+\b|spec(\.md)? ?§|§ ?[0-9]|\bspec\.md\b|\brequirements\.md\b'

check_tree()
{
	top=$1
	if ! git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		echo "check-comments: SKIP: $top is not a git checkout (it checks tracked files)"
		return 0
	fi
	# the mutants list names checks, not history
	hits=$(cd "$top" && git ls-files -z -- . ':!tests/mutants/list' ':!tools/check-comments.sh' |
		xargs -0 grep -n -I -i -E "$pattern" -- 2>/dev/null || true)
	if [ -n "$hits" ]; then
		printf '%s\n' "$hits"
		echo "check-comments: a comment or text points at a tracker or a planning document;" \
			"say the reason in place (history goes in the commit message)" >&2
		return 1
	fi
	return 0
}

self_test()
{
	t=$(mktemp -d)
	trap 'rm -rf "$t"' EXIT
	git -C "$t" init -q
	echo '/* the reason, said in place */' > "$t/ok.c"
	git -C "$t" add ok.c
	check_tree "$t" > /dev/null || { echo "self-test: a clean tree failed"; return 1; }
	fail=0
	for text in '/* fixed for issue 17 */' '# see Issue #8' '/* item 3 of the list */' \
	            '/* spec §4 */' '# as spec.md says' '<!-- requirements.md -->'; do
		printf '%s\n' "$text" > "$t/bad.c"
		git -C "$t" add bad.c
		if check_tree "$t" > /dev/null 2>&1; then
			echo "self-test: not caught: $text"
			fail=1
		fi
		git -C "$t" rm -q --cached bad.c
	done
	[ "$fail" = 0 ] && echo "check-comments: self-test passed"
	return "$fail"
}

if [ "${1:-}" = --self-test ]; then
	self_test
else
	check_tree "${1:-.}" && echo "check-comments: no references to trackers or planning documents"
fi
