"""vLLM's release table, assembled from three modules (core/registry/engine_releases.py: the
V0-era releases of engine_releases_vllm_v0.py, the V1 releases of engine_releases_vllm_v1.py,
then 0.11.0 on): oldest first, each version once, and a version listed twice refused."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from gpusizer.core.registry.engine_releases import VLLM, refuse_duplicates
from gpusizer.core.registry.engine_releases_vllm_v0 import V0_RELEASES
from gpusizer.core.registry.engine_releases_vllm_v1 import V1_08_TO_010
from gpusizer.core.registry.engines import version_key
from gpusizer.core.registry.table import DuplicateId


def test_releases_oldest_first_each_once() -> None:
    versions = [r.version for r in VLLM]
    assert versions == sorted(versions, key=lambda v: version_key(v) or ("", ()))
    assert len(set(versions)) == len(versions)
    # the V0 era first, then the V1 releases of 0.8-0.10, then this module's own
    assert versions[: len(V0_RELEASES)] == [r.version for r in V0_RELEASES]
    # with the 0.9.2 row that splits 0.9.1's where its chat route stops parsing the template on
    # every request (core/registry/chat_template_parse.py)
    v1 = [r.version for r in V1_08_TO_010]
    v1.insert(v1.index("0.9.1") + 1, "0.9.2")
    assert versions[len(V0_RELEASES) : len(V0_RELEASES) + len(v1)] == v1
    assert versions[0] == "0.6.4" and versions[len(V0_RELEASES) + len(v1)] == "0.11.0"


def test_a_version_listed_twice_is_refused() -> None:
    again = replace(VLLM[-1], date="2099-01")
    with pytest.raises(DuplicateId, match=re.escape("vLLM release '0.33.0' is already registered")):
        refuse_duplicates((*VLLM, again), "vLLM release")
    assert refuse_duplicates(VLLM, "vLLM release") is VLLM
