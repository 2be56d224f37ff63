#!/usr/bin/perl
# Used by scripts/git-fsck-tests.sh: compares one repository state's `git fsck` and
# `flagsplit fsck` runs and classes a difference.
#
#   perl git-fsck-tests-compare.pl FINDINGS RUN TRASH UNIT CASE COMMAND
#
# RUN holds one directory per variant (0/, 1/, ...) with `variant`, git.rc, git.out, git.err,
# fs.rc, fs.out and fs.err, and, for a `--lost-found` run, lost-found.diff (how the two
# `lost-found/` trees written on two copies of the state differ; empty when they are the same).
# The exit statuses and the stdout and stderr lines, each with the number of times it is printed,
# are compared (flagsplit's `notice: not checked: ...` lines left out). The class of a difference is its
# differing lines with the TRASH path, object ids and numbers written as $TRASH, <oid> and N, with
# the two statuses; when one side or both have `fatal:` lines the other has not, those lines
# alone and the status of the side that printed them make the class. Each variant that differs is classed on its own. The first state of a
# class creates FINDINGS/classes/CLASS/class.txt and prints `new CLASS` (the caller saves the
# repository); a known class prints `old CLASS`; no difference prints nothing; `call-differs` when
# the variant labelled `the call: ...` (the scripts' own `git fsck` call) differs. Each differing
# variant adds a line to FINDINGS/occurrences.tsv: UNIT, CASE, VARIANT, CLASS, COMMAND.
use strict;
use warnings;
use Digest::MD5 qw(md5_hex);
use Fcntl qw(:flock);

my ($findings, $run, $trash, $unit, $case, $command) = @ARGV;

sub slurp {
	my ($path) = @_;
	open(my $fh, '<', $path) or return '';
	local $/;
	my $s = <$fh>;
	return defined $s ? $s : '';
}

sub lines {
	my ($text, $drop_notices) = @_;
	my %count;
	for my $l (split /\n/, $text) {
		next if $drop_notices && $l =~ /^notice: not checked: /;
		$count{$l}++;
	}
	return \%count;
}

sub norm {
	my ($l) = @_;
	$l =~ s/\Q$trash\E/\$TRASH/g if length $trash;
	$l =~ s/\b[0-9a-f]{64}\b/<oid>/g;
	$l =~ s/\b[0-9a-f]{40}\b/<oid>/g;
	$l =~ s/\b[0-9a-f]{38}\b/<oid>/g;
	$l =~ s{\b[0-9a-f]{2}/<oid>}{<xx>/<oid>}g;
	$l =~ s/\d+/N/g;
	return $l;
}

my (%classes, @occurrences, $call_differs);
for my $d (sort { $a <=> $b } grep { /^\d+$/ } map { s{.*/}{}r } glob("$run/*")) {
	my $dir = "$run/$d";
	chomp(my $variant = slurp("$dir/variant"));
	chomp(my $grc = slurp("$dir/git.rc"));
	chomp(my $frc = slurp("$dir/fs.rc"));
	my @only;
	for my $stream (qw(out err)) {
		my $g = lines(slurp("$dir/git.$stream"), 0);
		my $f = lines(slurp("$dir/fs.$stream"), 1);
		push @only, map { ["git", $stream, $_] } grep { !$f->{$_} } sort keys %$g;
		push @only, map { ["flagsplit", $stream, $_] } grep { !$g->{$_} } sort keys %$f;
		# A line both print, a different number of times.
		push @only, map { ["counts", $stream, "$_ (git $g->{$_}x, flagsplit $f->{$_}x)"] }
			grep { $f->{$_} && $f->{$_} != $g->{$_} } sort keys %$g;
	}
	# `--lost-found` ran on two copies of the state: the trees it wrote must be the same.
	my $lf = slurp("$dir/lost-found.diff");
	push @only, map { ["lost-found", "out", $_] } split /\n/, $lf;
	next if $grc eq $frc && !@only;
	$call_differs = 1 if $variant =~ /^the call: /;
	my @fatal = grep { $_->[2] =~ /^fatal: / } @only;
	my %sides = map { $_->[0] => 1 } @fatal;
	my $status = "status git $grc flagsplit $frc";
	$status = "status git $grc" if $sides{git} && !$sides{flagsplit};
	$status = "status flagsplit $frc" if $sides{flagsplit} && !$sides{git};
	my %seen;
	my $key = join("\n", $status,
		grep { !$seen{$_}++ } map { "$_->[0] std$_->[1]: " . norm($_->[2]) } (@fatal ? @fatal : @only));
	my $class = substr(md5_hex($key), 0, 12);
	$variant = '(default)' if $variant eq '';
	push @occurrences, [$variant, $class];
	$classes{$class} //= [$variant, $grc, $frc, \@only, $key];
}

my @out;
for my $class (sort keys %classes) {
	my ($variant, $grc, $frc, $only, $key) = @{$classes{$class}};
	my $cdir = "$findings/classes/$class";
	my $new = mkdir $cdir;
	if ($new) {
		open(my $fh, '>', "$cdir/class.txt") or die "$cdir/class.txt: $!";
		print $fh "first seen: $unit case $case, fsck $variant, before `$command`\n";
		print $fh "exit status: git $grc, flagsplit $frc\n";
		for my $o (@$only) {
			my $l = $o->[2];
			$l =~ s/\Q$trash\E/\$TRASH/g if length $trash;
			print $fh "only $o->[0] std$o->[1]: $l\n";
		}
		print $fh "\nclass key:\n$key\n";
		close $fh;
	}
	push @out, ($new ? "new" : "old") . " $class\n";
}
open(my $occ, '>>', "$findings/occurrences.tsv") or die "$findings/occurrences.tsv: $!";
flock($occ, LOCK_EX);
print $occ join("\t", $unit, $case, @$_, $command), "\n" for @occurrences;
close $occ;
print @out;
print "call-differs\n" if $call_differs;
