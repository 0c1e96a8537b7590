"""The built documentation opened in a real browser (issue 17, item 6).

Runs only when selected (``pytest -m browser``; ``.ci/run`` does so after the docs build),
against the site in ``docs/_build/html`` (or ``$ADAPTIVE_DP_DOCS_HTML``), served on
localhost, in Debian's headless Chromium driven by Selenium through
``/usr/bin/chromedriver`` (never a browser download). Checks that MathJax typeset the math
(its ``mjx-container`` output present, no raw ``$$`` left), that a proof page shows every
step with its status and links to its spec item and API page, and that the search page
finds a spec id.
``$ADAPTIVE_DP_SCREENSHOTS``, if set, names a directory for screenshots of the pages seen.
"""

from __future__ import annotations

import functools
import http.server
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("ADAPTIVE_DP_DOCS_HTML", ROOT / "docs" / "_build" / "html"))
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
PROOF = "R23-Thm6"
"""The proof page opened (any proof would do; this one has checked and argument steps)."""
TIMEOUT = 30.0


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    if not (SITE / "index.html").is_file():
        pytest.fail(f"no built site at {SITE}: run sphinx-build -b html docs {SITE} first")
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists():
            pytest.fail(f"{path} is missing: install Debian's chromium and chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1280,1600",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    yield driver
    driver.quit()


def _open(browser: WebDriver, url: str, name: str) -> None:
    browser.get(url)
    WebDriverWait(browser, TIMEOUT).until(
        lambda d: d.execute_script("return document.readyState") == "complete")
    shots = os.environ.get("ADAPTIVE_DP_SCREENSHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(Path(shots) / f"{name}.png"))


def _typeset(browser: WebDriver) -> int:
    """Waits for MathJax's output and returns the number of typeset formulas."""
    WebDriverWait(browser, TIMEOUT).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "mjx-container"))
    return len(browser.find_elements(By.CSS_SELECTOR, "mjx-container"))


@pytest.mark.parametrize("page", ["index.html", f"proofs/{PROOF}.html"])
def test_math_is_typeset(browser: WebDriver, base_url: str, page: str) -> None:
    _open(browser, f"{base_url}/{page}", page.replace("/", "_").removesuffix(".html"))
    assert _typeset(browser) >= 1
    text = browser.find_element(By.TAG_NAME, "article").text
    assert "$$" not in text
    assert "\\varepsilon" not in text  # TeX source left untypeset would show its commands


def test_proof_page_shows_step_statuses_and_links(browser: WebDriver, base_url: str) -> None:
    _open(browser, f"{base_url}/proofs/{PROOF}.html", "proof")
    steps = browser.find_elements(By.CSS_SELECTOR, ".proof-step")
    assert len(steps) >= 3
    statuses = [step.find_element(By.CSS_SELECTOR, ".proof-step-status").text.strip()
                for step in steps]
    assert all(statuses), statuses
    assert not [s for s in statuses if "fail" in s.lower()], statuses
    assert browser.find_elements(By.CSS_SELECTOR, ".proof-provenance")
    api = browser.find_elements(By.CSS_SELECTOR, "a.reference.internal code.xref.py")
    assert any("/api/" in (a.find_element(By.XPATH, "..").get_attribute("href") or "")
               for a in api)
    link = browser.find_element(By.CSS_SELECTOR, "a.proof-spec-link")
    target = link.get_attribute("href")
    assert target is not None and PROOF in target
    _open(browser, target, "proof_spec_target")
    assert PROOF in browser.find_element(By.TAG_NAME, "article").text


def test_search_finds_a_spec_id(browser: WebDriver, base_url: str) -> None:
    _open(browser, f"{base_url}/search.html?q={PROOF}", "search")
    # results are appended one by one (each fetches its summary): wait for the whole list
    WebDriverWait(browser, TIMEOUT).until(
        lambda d: any("Search finished" in p.text
                      for p in d.find_elements(By.CSS_SELECTOR, "p.search-summary")))
    results = browser.find_elements(By.CSS_SELECTOR, "ul.search li")
    assert any(PROOF in li.text for li in results)
    pages = [a.get_attribute("href") or "" for li in results
             for a in li.find_elements(By.TAG_NAME, "a")]
    assert any(page.split("#")[0].endswith("spec-catalogue.html") for page in pages), pages


@pytest.mark.parametrize("tutorial", ["filters-and-odometers", "composition-and-conversions"])
def test_tutorial_shows_its_figures_and_claim_run(
    browser: WebDriver, base_url: str, tutorial: str
) -> None:
    _open(browser, f"{base_url}/tutorials/{tutorial}.html", f"tutorial_{tutorial}")
    assert _typeset(browser) >= 1
    figures = browser.find_elements(By.CSS_SELECTOR, "article img")
    assert figures, "no figure on the page"
    WebDriverWait(browser, TIMEOUT).until(lambda d: all(
        d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", img)
        for img in figures))
    text = browser.find_element(By.TAG_NAME, "article").text
    assert "holds" in text and "Traceback" not in text  # the executed claim run's verdicts
