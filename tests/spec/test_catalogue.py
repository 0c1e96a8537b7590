"""The spec catalogue's status rules, checked mechanically (docs/design.md, the spec catalogue).

- every ``spec/<TAG>.toml`` parses; ids and aliases are unique across the files; ids follow
  ``<TAG>-<Kind><number>`` or ``<TAG>-<CamelName>`` with the file's tag; kind, provenance and
  status are in their sets; ``reconstructed`` is true whenever the provenance is not V and
  for every ``-Corrected`` item;
- implemented / verified: ``implemented_by`` imports, its docstring opens with the id or an
  alias, and every ``tested_by`` file exists and mentions the id (or an alias);
- verified additionally: the proof file exists and its checks pass, and every listed claim
  is registered with at least one twin;
- refuted: the ``twin`` imports; a planned item that names a twin names it in
  ``adaptive_dp.verify.registry.twins``; reference items have no symbol;
- coverage: the ids enumerated from the seeds (``EXPECTED`` below) are all present, and no
  id appears that is not listed there, so an item cannot silently vanish or slip in.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
from pathlib import Path
from typing import Any

import pytest

from adaptive_dp.catalogue.items import (
    KINDS,
    PROVENANCES,
    SOURCES,
    STATUSES,
    CatalogueError,
    SpecItem,
    coverage,
    id_pattern,
    item,
    load_catalogue,
    parse_items,
)

ROOT = Path(__file__).resolve().parents[2]
ITEMS = load_catalogue()

# ---------------------------------------------------------------------------- enumeration

# Every id and alias, per source tag, enumerated from the seeds and reference catalogues.
EXPECTED: dict[str, tuple[str, ...]] = {
    "R23": (
        # seed 000 (LaTeX) section 2-5
        "R23-Def2.1", "R23-Eq1", "R23-Def2.2", "R23-Sensitivity", "R23-Lem2.1",
        "R23-Def2.3", "R23-RenyiDivergence", "R23-Def2.4", "R23-Def2.5", "R23-Lem2.2",
        "R23-Lem2.3", "R23-Lem2.4", "R23-Def2.6", "R23-Def2.7", "R23-Thm1", "R23-Def3.1",
        "R23-Thm2", "R23-Def4.1", "R23-Def4.2", "R23-Def4.3", "R23-Def4.4", "R23-Lem4.1",
        "R23-Lem5.1", "R23-Lem5.2", "R23-Rem1", "R23-Def5.1", "R23-Thm3",
        # seed 002 (prose) section 6
        "R23-Thm4", "R23-Lem6.1", "R23-Eq2", "R23-Thm5", "R23-Rem2", "R23-Rem3", "R23-Eq3",
        "R23-Lem6.2", "R23-Eq4", "R23-Thm6", "R23-Eq5", "R23-Eq6", "R23-Eq7", "R23-Eq8",
        "R23-Eq9", "R23-Eq10", "R23-Eq11",
        # section 7 procedures
        "R23-RelativeError", "R23-RelativeErrorStop", "R23-DoublingMethod",
        "R23-BrownianRelativeError", "R23-ExperimentBudget", "R23-SyntheticExperiment",
        # appendix A
        "R23-NoiseReductionFramework", "R23-Eq12", "R23-Eq13", "R23-LaplaceProcess",
        "R23-DefA.1", "R23-LaplaceReleaseKernel", "R23-LemA.1",
    ),
    "H23": (
        "H23-Def1.1", "H23-Def1.2", "H23-Def1.3", "H23-Comp", "H23-Def1.4", "H23-Def1.5",
        "H23-Def1.6", "H23-Def1.7", "H23-Thm1.8", "H23-Thm1.9", "H23-Def1.10",
        "H23-Def1.11", "H23-Def1.12", "H23-Def1.13", "H23-Def1.14", "H23-Def1.15",
        "H23-Def1.16", "H23-Def1.17", "H23-Def1.18", "H23-Def1.19", "H23-Thm1.20",
        "H23-Thm1.21", "H23-Thm1.22", "H23-Thm1.23", "H23-Cor1.24", "H23-Thm1.25",
        "H23-F2", "H23-Lem1.26",
        "H23-Def2.1", "H23-Def2.2", "H23-Lem2.3", "H23-Def2.4", "H23-Def2.5", "H23-Def2.6",
        "H23-Def2.7", "H23-Def2.8", "H23-Def2.9", "H23-Def2.10", "H23-Def2.11",
        "H23-Def2.12", "H23-Def2.13", "H23-Def2.14", "H23-Def2.15", "H23-Def2.16",
        "H23-Thm2.17", "H23-Cor2.18", "H23-Lem2.19",
        "H23-HypothesisTesting", "H23-Def3.1", "H23-Def3.2", "H23-FDPPoset", "H23-Thm3.3",
        "H23-FEpsDelta", "H23-Thm3.4", "H23-Cor3.5", "H23-Thm3.6", "H23-Thm3.7",
        "H23-Thm3.7-Printed", "H23-Thm3.8",
        "H23-Def4.1", "H23-Def4.2", "H23-RDPPoset", "H23-Thm4.3", "H23-Def4.4",
        "H23-Thm4.5", "H23-Thm4.6", "H23-Lem4.7", "H23-ConsistentSequences", "H23-Lem4.8",
        "H23-Thm4.9", "H23-Thm4.10", "H23-Thm4.11",
        "H23-Alg1", "H23-Alg2", "H23-Alg3", "H23-Alg4", "H23-Alg5", "H23-Alg6", "H23-Alg7",
        "H23-Alg8", "H23-Alg9", "H23-Alg10", "H23-Alg11", "H23-Alg12", "H23-Alg13",
        "H23-Alg14", "H23-Alg15",
        "H23-LemB.1", "H23-ExB.2", "H23-ThmB.3", "H23-ThmB.4",
    ),
    "W23": (
        "W23-PrivacyLoss", "W23-pDP", "W23-ConditionalPDP", "W23-ConditionalDP",
        "W23-FilterDef", "W23-OdometerDef", "W23-Filter", "W23-FullyAdaptive",
        "W23-StitchedOdometer", "W23-StitchedOdometer-Corrected", "W23-MixtureOdometer",
        "W23-MixtureOdometer-Corrected", "W23-OdometerComparison", "W23-ZCDPFilter",
        "W23-PureStepMean", "W23-ClippedPDPStep", "W23-ApproxToPDP", "W23-DriftNote",
    ),
    "CS2080": (
        "CS2080-Discussion", "CS2080-PureDP", "CS2080-PointwiseCheck",
        "CS2080-PostProcessing", "CS2080-BasicComp", "CS2080-InteractiveDP",
        "CS2080-PureDPFilter", "CS2080-PrivacyBudgeting", "CS2080-SQModel",
        "CS2080-GroupPrivacy", "CS2080-Histogram", "CS2080-ParallelComp", "CS2080-ApproxDP",
        "CS2080-GaussianSigma", "CS2080-GaussianSigma-Printed", "CS2080-AdvComp",
        "CS2080-QueriesAccuracy", "CS2080-PrivacyMeasures", "CS2080-ZCDP", "CS2080-FDP",
        "CS2080-CorrelatedNoise",
    ),
    "W22": (
        "W22-BrownianMechanism", "W22-NoiseReductionProperty", "W22-Thm3.4", "W22-Thm3.6",
        "W22-MixtureExPost", "W22-LinearExPost", "W22-ReverseSampling",
        "W22-ReducedAboveThreshold", "W22-LaplaceNoiseReduction",
    ),
    "RRUV16": ("RRUV16-OdometerDef", "RRUV16-Filter", "RRUV16-BasicFilter", "RRUV16-Odometer"),
    "EXT": (
        "EXT-CKS20", "EXT-Mironov17", "EXT-BBGHS20", "EXT-GDP", "EXT-GaussianTradeoff",
        "EXT-DRS19", "EXT-GDPComposition", "EXT-HockeyStick", "EXT-KOV15",
        "EXT-GaussianRDP", "EXT-RandomizedResponse", "EXT-ST22", "EXT-CR21", "EXT-Ville",
        "EXT-Hoeffding", "EXT-HRMS21Stitching", "EXT-HRMS21NormalMixture", "EXT-Lecuyer21",
        "EXT-DRV10", "EXT-FZ21", "EXT-MV16", "EXT-GDPAccumulator", "EXT-DiscreteGaussian",
        "EXT-MixtureLift", "EXT-ChordKL",
    ),
    # this project's audit theory (cited literature, no seed)
    "AUD": (
        "AUD-DominatingPairs", "AUD-ProfileUpper", "AUD-ProfileLower", "AUD-FFTError",
        "AUD-TailBound", "AUD-Inversion", "AUD-SubsampledRDP", "AUD-Verdict",
        "AUD-FilterModels",
    ),
}

# Primary items per file (aliases live in the file of their primary item).
EXPECTED_PRIMARY_COUNT = {
    "R23": 57, "H23": 63, "W23": 14, "CS2080": 19, "W22": 5, "RRUV16": 3, "EXT": 23,
    "AUD": 9,
}

# The fixed ids of the briefs' interface contract (every one must resolve).
FIXED_IDS = (
    "R23-Def2.1", "R23-Def2.2", "R23-Sensitivity", "R23-Lem2.1", "R23-Def2.3",
    "R23-RenyiDivergence", "R23-Def2.4", "R23-Def2.5", "R23-Lem2.2", "R23-Lem2.3",
    "R23-Lem2.4", "H23-Def1.1", "H23-Def1.2", "H23-Def1.3", "H23-Def3.1", "H23-Def3.2",
    "H23-Def4.4", "H23-FEpsDelta", "W23-pDP", "CS2080-PureDP", "CS2080-BasicComp",
    "CS2080-ApproxDP", "CS2080-GroupPrivacy", "CS2080-GaussianSigma", "CS2080-AdvComp",
    "CS2080-ZCDP", "CS2080-PureDPFilter", "CS2080-FDP", "CS2080-PostProcessing", "EXT-CKS20",
    "EXT-Mironov17", "EXT-BBGHS20", "EXT-DRS19", "EXT-GDPComposition", "EXT-KOV15",
    "EXT-GaussianRDP", "EXT-RandomizedResponse", "EXT-ST22", "EXT-CR21", "R23-Thm2",
    "W23-ZCDPFilter", "H23-Thm4.10", "H23-ThmB.3", "H23-Thm3.7", "H23-Thm3.7-Printed",
    "W23-Filter", "H23-Thm4.6", "H23-Lem4.7", "H23-Thm3.8", "H23-ThmB.4", "H23-Thm4.9",
    "H23-Thm4.11", "H23-Lem2.19", "RRUV16-Filter", "W23-StitchedOdometer",
    "W23-MixtureOdometer", "W23-StitchedOdometer-Corrected", "W23-MixtureOdometer-Corrected",
    "RRUV16-Odometer",
)

# Printed-but-wrong forms (docs/design.md, principle 7): refuted, or planned with the twin named.
PRINTED_FORMS = (
    "H23-Thm3.7-Printed",
    "W23-StitchedOdometer",
    "W23-MixtureOdometer",
    "CS2080-GaussianSigma-Printed",
)


# ---------------------------------------------------------------------------- helpers


def _resolve(dotted: str) -> Any:
    """Import the longest importable module prefix of ``dotted``, then follow attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        name = ".".join(parts[:cut])
        try:
            found = importlib.util.find_spec(name)
        except ModuleNotFoundError:
            found = None
        if found is None:
            continue
        obj: Any = importlib.import_module(name)
        for attribute in parts[cut:]:
            obj = getattr(obj, attribute)
        return obj
    raise ImportError(f"nothing importable in {dotted!r}")


_ID_TOKEN = r"[A-Za-z0-9]+-[A-Za-z0-9.]+(?:-(?:Corrected|Printed))?"
_LEADING = re.compile(rf"^\s*({_ID_TOKEN}(?:\s*(?:/|,|and|=|\(=)\s*{_ID_TOKEN})*)")


def _leading_ids(doc: str) -> set[str]:
    """The ids a docstring opens with: ``ID``, ``ID / ID``, ``ID and ID``, ``ID (= ID``."""
    first = doc.strip().splitlines()[0] if doc.strip() else ""
    match = _LEADING.match(first)
    if match is None:
        return set()
    return {token.rstrip(".") for token in re.findall(_ID_TOKEN, match.group(1))}


def _mentions(text: str, names: tuple[str, ...]) -> bool:
    return any(re.search(rf"(?<![\w.-]){re.escape(n)}(?![\w]|\.\d|-[A-Z])", text) for n in names)


def _by_status(*statuses: str) -> list[SpecItem]:
    return [entry for entry in ITEMS if entry.status in statuses]


def _param(entries: list[SpecItem]) -> pytest.MarkDecorator:
    return pytest.mark.parametrize("entry", entries, ids=[e.id for e in entries])


def _registry() -> Any:
    try:
        module = importlib.import_module("adaptive_dp.verify.registry")
    except ModuleNotFoundError:
        return None
    return getattr(module, "REGISTRY", None)


# ---------------------------------------------------------------------------- format


def test_every_file_parses_and_tags_are_the_sources() -> None:
    assert {entry.tag for entry in ITEMS} == set(SOURCES)
    for tag in SOURCES:
        text = (ROOT / "spec" / f"{tag}.toml").read_text(encoding="utf-8")
        assert parse_items(text, tag, f"spec/{tag}.toml")


def test_ids_and_aliases_unique_across_files() -> None:
    names = [name for entry in ITEMS for name in entry.names]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    assert duplicates == []


@_param(list(ITEMS))
def test_item_fields(entry: SpecItem) -> None:
    assert id_pattern(entry.tag).match(entry.id), entry.id
    assert entry.kind in KINDS
    assert entry.provenance in PROVENANCES
    assert entry.status in STATUSES
    if entry.provenance != "V" or entry.id.endswith("-Corrected"):
        assert entry.reconstructed, f"{entry.id}: provenance {entry.provenance} needs reconstructed"
    for alias in entry.aliases:
        tag = alias.split("-", 1)[0]
        assert tag in SOURCES and id_pattern(tag).match(alias), alias
    if entry.status == "reference":
        assert entry.implemented_by is None, f"{entry.id}: a reference item has no symbol"
    if entry.implemented_by is not None:
        assert entry.implemented_by.startswith("adaptive_dp."), entry.implemented_by
    for path in entry.tested_by:
        assert path.startswith("tests/") and path.endswith(".py"), path
    if entry.proof is not None:
        assert entry.proof == f"proofs/{entry.id}.md" or entry.proof.startswith("proofs/")
    for claim in entry.claims:
        assert claim.split("/", 1)[0] in entry.names, f"{entry.id}: claim {claim} names another id"


def test_parse_rejects_bad_items() -> None:
    good = (
        '[[item]]\nid = "R23-Thm2"\nkind = "theorem"\ntitle = "t"\nsource = "s"\n'
        'provenance = "V"\nstatement = "x"\nreconstructed = false\nstatus = "planned"\n'
    )
    assert parse_items(good, "R23")[0].id == "R23-Thm2"
    for bad in (
        good.replace('"R23-Thm2"', '"H23-Thm2"'),  # wrong tag for the file
        good.replace('"theorem"', '"lemma"'),  # kind does not match the Thm prefix
        good.replace('"planned"', '"done"'),
        good.replace('"V"', '"Q"'),
        good + 'colour = "red"\n',
        good.replace("reconstructed = false\n", ""),
        "[[item]\n",
    ):
        with pytest.raises(CatalogueError):
            parse_items(bad, "R23")


def test_aliases_resolve_to_their_primary() -> None:
    assert item("W23-Filter").id == "H23-ThmB.3"
    assert item("H23-Thm3.7").id == "H23-ThmB.3"
    assert item("W23-ZCDPFilter").id == "R23-Thm2"
    assert item("H23-ThmB.4").id == "H23-Thm3.8"
    with pytest.raises(KeyError):
        item("R23-Thm99")


# ---------------------------------------------------------------------------- statuses


@_param(_by_status("implemented", "verified"))
def test_implemented_symbol_docstring_and_tests(entry: SpecItem) -> None:
    assert entry.implemented_by is not None, f"{entry.id}: implemented needs implemented_by"
    symbol = _resolve(entry.implemented_by)
    doc = inspect.getdoc(symbol) or ""
    opened = _leading_ids(doc)
    assert opened & set(entry.names), (
        f"{entry.implemented_by}'s docstring opens with {sorted(opened)}, not {entry.names}"
    )
    assert entry.tested_by, f"{entry.id}: implemented needs at least one tested_by file"
    for path in entry.tested_by:
        file = ROOT / path
        assert file.is_file(), f"{entry.id}: {path} does not exist"
        assert _mentions(file.read_text(encoding="utf-8"), entry.names), (
            f"{entry.id}: {path} does not mention the id"
        )


@_param(
    [
        e
        for e in _by_status("implemented", "verified")
        if e.kind in ("lemma", "theorem", "corollary", "proposition")
    ]
)
def test_implemented_results_have_proofs(entry: SpecItem) -> None:
    """Issue 5: every implemented lemma, theorem, corollary and proposition has a proof file."""
    assert entry.proof is not None, f"{entry.id}: an implemented {entry.kind} needs a proof"
    assert (ROOT / entry.proof).is_file(), f"{entry.id}: {entry.proof} does not exist"


@_param(_by_status("verified"))
def test_verified_proof_and_claims(entry: SpecItem) -> None:
    assert entry.proof is not None, f"{entry.id}: verified needs a proof"
    assert (ROOT / entry.proof).is_file(), f"{entry.id}: {entry.proof} does not exist"
    try:
        proofs = importlib.import_module("adaptive_dp.catalogue.proofs")
    except ModuleNotFoundError:
        proofs = None
    if proofs is not None:
        proof = proofs.load_proof(Path(entry.proof).stem)
        for step in proof.steps:
            if step.kind != "argument":
                assert proofs.run_check(step), f"{entry.id}: {step.label} fails"
    registry = _registry()
    assert registry is not None, "verified items need adaptive_dp.verify.registry.claims.REGISTRY"
    assert entry.claims, f"{entry.id}: verified needs registered claims"
    for claim in entry.claims:
        assert claim in registry, f"{entry.id}: claim {claim} is not registered"
        assert len(registry[claim].twins) >= 1, f"{entry.id}: claim {claim} has no twin"


def test_registry_check_is_skipped_only_while_allowed() -> None:
    verified = _by_status("verified")
    if _registry() is None:
        assert not verified, "verified items exist but the claim registry does not"
        pytest.skip("claim registry not written yet and nothing is verified")


def test_registered_claims_name_catalogue_ids() -> None:
    """Every registered claim (and every twin naming a spec id) points at a catalogue item."""
    registry = _registry()
    if registry is None:
        pytest.skip("claim registry not written yet")
    for claim_id, claim in registry.items():
        assert claim_id.split("/", 1)[0] in item(claim.spec_id).names, claim_id
        for twin in claim.twins:
            if twin.spec_id is not None:
                item(twin.spec_id)


@_param(_by_status("refuted"))
def test_refuted_points_at_an_importable_twin(entry: SpecItem) -> None:
    assert entry.twin is not None, f"{entry.id}: refuted needs a twin"
    assert entry.twin.startswith("adaptive_dp.verify.registry.twins."), entry.twin
    _resolve(entry.twin)


@pytest.mark.parametrize("ident", PRINTED_FORMS)
def test_printed_forms_are_negative_controls(ident: str) -> None:
    entry = item(ident)
    assert entry.id == ident
    assert entry.status in ("refuted", "planned")
    assert entry.twin is not None and entry.twin.startswith("adaptive_dp.verify.registry.twins.")
    corrected = f"{ident.removesuffix('-Printed')}-Corrected"
    if ident.endswith("-Printed"):
        return
    assert item(corrected).reconstructed


def test_twin_only_on_printed_forms() -> None:
    assert {e.id for e in ITEMS if e.twin is not None} == set(PRINTED_FORMS)


# ---------------------------------------------------------------------------- coverage


def test_expected_ids_all_present_and_nothing_unlisted() -> None:
    expected = {name for names in EXPECTED.values() for name in names}
    present = {name for entry in ITEMS for name in entry.names}
    assert sorted(expected - present) == [], "items vanished from the catalogue"
    assert sorted(present - expected) == [], "new ids: add them to EXPECTED"
    for tag, names in EXPECTED.items():
        assert all(name.startswith(f"{tag}-") for name in names), tag


def test_primary_counts_per_file() -> None:
    counts = {tag: sum(1 for e in ITEMS if e.tag == tag) for tag in SOURCES}
    assert counts == EXPECTED_PRIMARY_COUNT


@pytest.mark.parametrize("ident", FIXED_IDS)
def test_fixed_ids_resolve(ident: str) -> None:
    assert ident in item(ident).names


def test_coverage_excludes_reference_items() -> None:
    for entry in coverage():
        mine = [e for e in ITEMS if e.tag == entry.tag]
        assert entry.items + entry.reference == len(mine)
        assert sum(n for _, n in entry.by_status) == entry.items
        assert entry.verified <= entry.implemented <= entry.items
