"""The plan as data (gpu/plan.py): every registry of per-kind behaviors has an entry for every
kernel kind, so that a new kind cannot reach a consumer that does not know it."""

from __future__ import annotations

import dataclasses

import pytest

from polycuda.codegen.kernel_kinds import CUDA_KINDS
from polycuda.gpu import plan
from polycuda.gpu.cost import REDUCE_COSTS
from polycuda.gpu.notes import KIND_NOTES
from polycuda.gpu.parallel import PARALLEL_CHECKS
from polycuda.show import SHOW_ENTRIES

TABLES = (CUDA_KINDS, KIND_NOTES, PARALLEL_CHECKS, SHOW_ENTRIES)


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.name)
@pytest.mark.parametrize("kind", plan.KINDS, ids=lambda k: k.__name__)
def test_every_table_covers_every_kind(table, kind):
    assert table.covers(kind)


@pytest.mark.parametrize("kind", [k for k in plan.KINDS if issubclass(k, plan.ReductionKernel)],
                         ids=lambda k: k.__name__)
def test_every_reduction_kind_has_a_reduce_cost(kind):
    assert REDUCE_COSTS.covers(kind)


def test_every_kind_has_a_name_of_its_own():
    names = [k.KIND for k in plan.KINDS]
    assert "" not in names and len(set(names)) == len(names)


def test_a_missing_entry_names_the_table_and_the_kind():
    table = plan.KindTable("launch", {plan.DoallKernel: 1})
    with pytest.raises(KeyError, match="launch: no entry for kind SerialKernel"):
        table[plan.SerialKernel("kernel0", 0)]


def test_a_kind_holds_only_its_own_fields():
    # a DOALL kernel has no staged arrays to set, a wavefront kernel no private scopes
    doall = plan.DoallKernel("kernel0", 1, (32,), (32,))
    with pytest.raises(TypeError):
        dataclasses.replace(doall, staged=())
    assert doall.staged == () and not doall.serial and not doall.wavefront
    wave = plan.WavefrontKernel("kernel1", 1, (16, 64), (64,))
    with pytest.raises(TypeError):
        dataclasses.replace(wave, private=())
    assert wave.wavefront and wave.wavefront_iterator() == "c2"
