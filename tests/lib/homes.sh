#!/usr/bin/env bash
# Knowledge kept in its home: every .c and .h file outside tests/ (and
# build*/, bin/, .git/) is checked for three things that belong in one place
#
#   1. a backend's name compared as a string (strcmp, strncmp, strcasecmp,
#      strstr, memcmp with "local", "slurm", ...) outside the backend's own
#      folder: the backends are the folders orchestrator/<name>/, and the
#      rest of perfsweep knows them through the registry
#      (orchestrator/backend.h);
#   2. a libconfig call or type (config_setting_*, config_lookup*,
#      config_root_setting, config_read*, config_t, ...) outside campaign/,
#      where the config kit is (campaign/config_get.h), except in the files
#      of LIBCONFIG_EXCEPTIONS below (a reader of another file format in
#      libconfig syntax, on a floor below campaign/); a listed file that no
#      longer calls libconfig is an error too, so the list only shrinks;
#   3. an error's text compared (strcmp or strstr of X.msg or X->msg): a
#      caller that must tell errors apart reads their kind (common/error.h).
#
# Prints one line per finding, "FILE:LINE: ...", and exits 1 if there is any.
#
#   tests/lib/homes.sh [ROOT]
set -euo pipefail

root=${1:-.}
case $root in -*) echo "usage: $0 [ROOT]" >&2; exit 2 ;; esac
cd "$root"

# FILE  why it still calls libconfig (each to go)
LIBCONFIG_EXCEPTIONS='
designs/deps_config.c        the native dependency-file format is libconfig syntax; its reader is a floor below campaign/
'

find . \( -path ./tests -o -path './build*' -o -path ./bin -o -path ./.git \) -prune -o \
	-type f \( -name '*.c' -o -name '*.h' \) -print | sed 's|^\./||' | sort |
	perl -e '
	my ($exceptions) = @ARGV;
	my %allowed;
	for (split /\n/, $exceptions) { $allowed{$1} = 0 if /^(\S+)/ }
	my @backends = map { m{^orchestrator/([^/]+)/$} ? $1 : () } glob("orchestrator/*/");
	my $names = join "|", map { quotemeta } @backends;
	my $bad = 0;
	sub say { print "$_[0]\n"; $bad++ }
	sub line_of { my ($text, $pos) = @_; 1 + (substr($text, 0, $pos) =~ tr/\n//) }
	while (my $f = <STDIN>) {
		chomp $f;
		next unless $f =~ m{/};
		open my $fh, "<", $f or die "$f: $!";
		local $/;
		my $t = <$fh>;
		close $fh;
		# comments out, their newlines kept; strings stay (the names are strings)
		$t =~ s{/\*.*?\*/}{ (my $c = $&) =~ s/[^\n]//g; $c }gse;
		$t =~ s{//[^\n]*}{}g;
		my ($folder) = $f =~ m{^([^/]+)/};
		my ($own) = $f =~ m{^orchestrator/([^/]+)/};
		# calls of a comparing function, with their balanced argument lists
		while ($t =~ /\b(str(?:n?case)?cmp|strncmp|strstr|memcmp)\s*(\((?:[^()]++|(?2))*\))/g) {
			my ($fn, $args, $at) = ($1, $2, $-[0]);
			if ($names ne "" && $args =~ /"($names)"/ && (!defined $own || $own ne $1)) {
				say(sprintf "%s:%d: %s compares the backend name \"%s\" outside orchestrator/%s/: "
				    . "ask the registry (orchestrator/backend.h)", $f, line_of($t, $at), $fn, $1, $1);
			}
			if ($args =~ /\b\w+(?:\.|->)msg\b/) {
				say(sprintf "%s:%d: %s on an error'\''s text: give the error a kind "
				    . "(common/error.h) and compare that", $f, line_of($t, $at), $fn);
			}
		}
		next if $folder eq "campaign";
		my $uses = 0;
		while ($t =~ /(\bconfig_(?:setting_\w+|lookup\w*|root_setting|read(?:_string|_file)?|init|destroy|error_(?:text|line|file|type)|write(?:_file)?|set_\w+|get_(?:option|options|include_dir|default_format|auto_convert|float_precision|hook|tab_width))\s*\(|\bconfig_(?:setting_)?t\b|<libconfig\.h>)/g) {
			my ($what, $at) = ($1, $-[0]);
			$uses++;
			next if exists $allowed{$f};
			$what =~ s/\s*\($//;
			say(sprintf "%s:%d: libconfig (%s) outside campaign/: read the config through the kit "
			    . "(campaign/config_get.h)", $f, line_of($t, $at), $what);
		}
		$allowed{$f} = 1 if $uses && exists $allowed{$f};
	}
	for my $f (sort keys %allowed) {
		say("$f: listed as a libconfig exception in tests/lib/homes.sh but calls none: remove it "
		    . "from the list") unless $allowed{$f};
	}
	exit($bad ? 1 : 0);
	' "$LIBCONFIG_EXCEPTIONS"
