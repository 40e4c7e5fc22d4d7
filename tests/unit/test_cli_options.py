"""Each Options field declared once (options.option): its flag, help and default reach the
command line from the declaration; old flag names keep working; typos are named."""

import dataclasses
import re
import warnings

import pytest

from polycuda import cli
from polycuda.errors import InvalidConfigError, UnknownOptionError
from polycuda.options import Options, flag_of, shown_default

FIELDS = dataclasses.fields(Options)

# every option flag of polycuda 2026-12-01's `compile`, as users' scripts spell them
OLD_FLAGS = (
    "--scheduler", "--tile-sizes", "--block-sizes", "--register-tiles", "--balanced-wavefront",
    "--eliminate-false-deps", "--no-wavefront", "--allow-reassociation",
    "--no-allow-reassociation", "--reduction-blocks", "--reduction-combine",
    "--no-expand-scalars", "--wavefront-sync", "--host-loops", "--intra-wavefront",
    "--shared-staging", "--shared-memory", "--shared-promotion", "--no-shared-promotion",
    "--sequential-tile", "--no-private-promotion", "--host-buffers", "--host-copies",
    "--host-pin-min", "--host-chunk", "--host-overlap", "--no-host-overlap", "--serial-region",
    "--host-fallback", "--runtime-executor", "--reuse-levels", "--cpu-fallback-per-level",
    "--aux-fraction", "--chunking", "--no-row-reductions", "--no-column-reductions",
    "--no-dual-reductions", "--no-chain-reductions", "--no-runtime-choice",
    "--no-producer-fusion", "--options", "--no-tuned-sizes", "--sizes", "--function", "-I",
    "-D", "-o", "--output", "--target", "--force", "--dump-options")


def _flags(command: str) -> set[str]:
    sub = cli.parser()._subparsers._group_actions[0].choices[command]
    return {s for a in sub._actions for s in a.option_strings}


def _other(f: dataclasses.Field) -> list[str]:
    """Arguments that set field `f` to a value other than its default."""
    d, meta, flag = f.default, f.metadata, flag_of(f)
    if isinstance(d, bool):
        return [f"--no-{f.name.replace('_', '-')}" if d else flag]
    if meta["choices"]:
        return [flag, str(next(c for c in meta["choices"] if c != d))]
    if isinstance(d, tuple):
        return [flag, "2,2"]
    if f.name == "sizes":  # a size plan
        return [flag, "{ kernel[0] -> tile[4] }"]
    if isinstance(d, str):  # cpu_fallback_per_level: auto or a number
        return [flag, "5"]
    return [flag, str(type(d)(d * 2 + 1))]


def test_every_field_is_reachable_or_says_why_not():
    for f in FIELDS:
        meta = f.metadata
        said = [k for k in ("help", "command", "api_only") if meta[k]]
        assert len(said) == 1, f.name
    assert _flags("compile") >= {flag_of(f) for f in cli.option_fields()}
    assert {f.name for f in FIELDS} - {f.name for f in cli.option_fields()} == {"target"}


@pytest.mark.parametrize("field", cli.option_fields(), ids=lambda f: f.name)
def test_each_flag_sets_its_field(field):
    extra = ["--scheduler", "pluto"] if field.name == "balanced_wavefront" else []
    args = cli.parser().parse_args(["compile", "f.c", *extra, *_other(field)])
    options = cli._options(args)
    assert getattr(options, field.name) != field.default
    assert options.replace(**{field.name: field.default}) == Options(
        **({"scheduler": "pluto"} if extra else {}), target="cuda") or not field.metadata["code"]


def _actions(command: str) -> dict[str, object]:
    sub = cli.parser()._subparsers._group_actions[0].choices[command]
    return {a.option_strings[0]: a for a in sub._actions if a.option_strings}


def test_help_shows_each_fields_own_default_and_states_none_itself():
    actions = _actions("run")
    for f in cli.option_fields():
        assert not re.search(r"\bdefaults?\b", f.metadata["help"]), (
            f"{f.name}: the help states a default; the field's own is appended")
        action = actions[flag_of(f)]
        assert action.dest == f.name
        assert action.help.endswith(f"(default: {shown_default(f.default)})"), f.name
    assert actions["--shared-promotion"].help.endswith("(default: on)")
    assert "superposition" in actions["--scheduler"].help
    assert "(default: 600000)" in " ".join(cli.parser()._subparsers._group_actions[0]
                                           .choices["run"].format_help().split())


def test_old_flag_names_still_parse():
    for command in ("compile", "show", "run", "verify", "tune"):
        missing = set(OLD_FLAGS) - _flags(command) - {"-o", "--output", "--force",
                                                     "--dump-options", "--target"}
        assert not missing, (command, missing)
    args = cli.parser().parse_args(["compile", "f.c", "--no-wavefront", "--shared-memory", "64",
                                    "--host-pin-min", "8", "--chunking", "static",
                                    "--no-tuned-sizes", "--tile-sizes", "-4,8"][:-2])
    options = cli._options(args)
    assert (options.wavefront, options.shared_memory_kib, options.host_pin_min_kib,
            options.runtime_chunking, options.tuned_sizes) == (False, 64, 8, "static", False)


def test_negative_values_reach_the_check():
    assert cli.main(["compile", "kernels/c/sor_1d.c", "--schedule-operations", "-3"]) == 1


def test_quiet_turns_progress_off_and_changes_no_code_or_key():
    options = cli._options(cli.parser().parse_args(["compile", "f.c", "--quiet"]))
    assert options.progress is False
    assert options == Options(target="cuda") and options.to_text() == Options(
        target="cuda").to_text()


def test_a_typo_in_options_names_the_closest_fields():
    with pytest.raises(UnknownOptionError, match=r"'tile_size' \(did you mean tile_sizes"):
        Options(tile_size=(32, 32))
    with pytest.raises(TypeError, match=r"'schedular' \(did you mean scheduler\?\)"):
        Options().replace(schedular="isl")
    with pytest.raises(InvalidConfigError, match="'frobnicate'.*the options are"):
        Options.from_text('{"frobnicate": 1}')


def test_sizes_reads_a_sizes_file_as_tuned_does(tmp_path):
    sizes = tmp_path / "s.json"
    sizes.write_text('{"tile_sizes": [8, 8]}')
    for flag in ("--sizes", "--tuned"):
        args = cli.parser().parse_args(["compile", "f.c", flag, str(sizes)])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert cli._options(args).tile_sizes == (8, 8)


def test_sizes_with_a_problem_size_suggests_size(capsys):
    assert cli.main(["run", "kernels/c/sor_1d.c", "--sizes", "n=100"]) == 1
    err = capsys.readouterr().err
    assert "did you mean --size n=100?" in err and "cannot read" not in err
    assert cli.main(["compile", "kernels/c/sor_1d.c", "--sizes", "n=100"]) == 1
    assert "did you mean --size n=100 (of run, verify or tune)?" in capsys.readouterr().err


def test_a_missing_tuned_file_says_what_it_is(capsys):
    assert cli.main(["compile", "kernels/c/sor_1d.c", "--tuned", "/nonexistent.json"]) == 1
    assert "cannot read tuned sizes file '/nonexistent.json'" in capsys.readouterr().err
