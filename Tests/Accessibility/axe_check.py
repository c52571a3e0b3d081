#!/usr/bin/env python3
"""Checks HTML pages for accessibility in a real headless Chromium.

For every page given (an http(s) or file URL, or the path of a file) it runs axe-core, as
axe-selenium-python bundles it, with the rules of WCAG 2.1 A and AA (tags wcag2a, wcag2aa,
wcag21a, wcag21aa), then a keyboard check: it presses Tab from the top of the page until focus
comes round again, and asks of every element that took focus that it is on screen and drawn
with a focus outline, and that every link, button and form control of the page took focus.

It prints one JSON object, {"pages": [{"url", "violations", "keyboard"}]}, and exits 0 when no
page has a violation or a keyboard problem, 1 when one has, 2 when it could not check (no
chromedriver, a page that does not load). See README.md.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import shutil
import sys

from axe_selenium_python import Axe
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

# The elements a keyboard user must reach: links, buttons, form controls, anything given a
# tab stop. Radio buttons of one group are one stop (the arrows move between them).
FOCUSABLE = """
const selector = 'a[href], area[href], button:not([disabled]), input:not([disabled]):not([type=hidden]),'
    + ' select:not([disabled]), textarea:not([disabled]), summary, iframe, [tabindex]:not([tabindex="-1"]),'
    + ' [contenteditable=""], [contenteditable="true"]';
const radioGroups = new Set();
const found = [];
for (const element of document.querySelectorAll(selector)) {
    const style = getComputedStyle(element);
    if (element.getClientRects().length === 0 || style.visibility === 'hidden') continue;
    if (element.type === 'radio' && element.name) {
        const group = (element.form ? 'form' : 'page') + ':' + element.name;
        if (radioGroups.has(group)) continue;
        radioGroups.add(group);
    }
    element.setAttribute('data-keyboard-check', String(found.length));
    found.push(element.outerHTML.slice(0, 160));
}
return found;
"""

# What the element that has focus looks like: where it is, and how its focus is drawn.
FOCUSED = """
const element = document.activeElement;
if (!element || element === document.body || element === document.documentElement) return null;
const style = getComputedStyle(element);
const box = element.getBoundingClientRect();
const group = element.type === 'radio' && element.name
    ? document.querySelector('[data-keyboard-check][name="' + CSS.escape(element.name) + '"]') : null;
return {
    key: (group || element).getAttribute('data-keyboard-check'),
    html: element.outerHTML.slice(0, 160),
    outlineStyle: style.outlineStyle,
    outlineWidth: parseFloat(style.outlineWidth) || 0,
    boxShadow: style.boxShadow,
    width: box.width, height: box.height,
    onScreen: box.bottom > 0 && box.right > 0 && box.top < window.innerHeight && box.left < window.innerWidth,
    visible: style.visibility !== 'hidden' && parseFloat(style.opacity) > 0,
};
"""


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="axe-core (WCAG 2.1 AA) and a keyboard check of HTML pages in headless Chromium.")
    parser.add_argument("pages", nargs="+", help="URLs, or paths of HTML files")
    parser.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser"), help="Chromium's executable")
    parser.add_argument("--chromedriver", default=shutil.which("chromedriver"), help="chromedriver's executable")
    parser.add_argument("--axe-script", help="another axe.min.js than the one axe-selenium-python bundles")
    parser.add_argument("--no-keyboard", action="store_true", help="leave out the keyboard check")
    return parser.parse_args()


def address(page: str) -> str:
    if "://" in page:
        return page
    return pathlib.Path(page).resolve().as_uri()


def start_browser(arguments: argparse.Namespace) -> webdriver.Chrome:
    if not arguments.chromedriver:
        raise SystemExit("axe_check: chromedriver is not installed: apt-get install -y chromium-driver")
    options = webdriver.ChromeOptions()
    if arguments.chromium:
        options.binary_location = arguments.chromium
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-extensions", "--window-size=1200,900", "--lang=en-US"]:
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(executable_path=arguments.chromedriver), options=options)
    # A large page on a busy machine: axe-core may take longer than selenium's 30 s.
    browser.set_script_timeout(180)
    return browser


def violations(browser: webdriver.Chrome, axe: Axe) -> list[dict]:
    axe.inject()
    # Of the tags, those the axe-core loaded has rules for (3.1 has none tagged wcag21a); its own
    # run() waits for ever on a rejected promise, whose error is returned here instead.
    results = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "const known = new Set(axe.getRules().flatMap(rule => rule.tags));"
        "const tags = arguments[0].filter(tag => known.has(tag));"
        "axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})"
        ".then(done, error => done({error: String(error)}));",
        TAGS,
    )
    if "error" in results:
        raise WebDriverException(f"axe-core failed: {results['error']}")
    return [
        {
            "id": violation["id"],
            "impact": violation.get("impact"),
            "help": violation["help"],
            "nodes": [
                {"target": node["target"], "html": node["html"][:300], "summary": node.get("failureSummary", "")}
                for node in violation["nodes"]
            ],
        }
        for violation in results["violations"]
    ]


def keyboard_problems(browser: webdriver.Chrome) -> list[str]:
    expected = browser.execute_script(FOCUSABLE)
    problems: list[str] = []
    reached: set[str] = set()
    browser.execute_script("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0);")
    # A page of N stops comes round after N + 1 presses; a date field takes three (day, month,
    # year), so a few times as many find where focus stops coming round.
    first = None
    for _ in range(3 * len(expected) + 3):
        ActionChains(browser).send_keys(Keys.TAB).perform()
        focused = browser.execute_script(FOCUSED)
        if focused is None:
            if reached:
                break
            continue
        key = focused["key"]
        if key is not None and key == first:
            break
        if key is not None:
            first = first or key
            if key in reached:
                continue
            reached.add(key)
        what = focused["html"]
        if focused["width"] <= 0 or focused["height"] <= 0 or not focused["visible"]:
            problems.append(f"takes focus but is not shown: {what}")
        elif not focused["onScreen"]:
            problems.append(f"takes focus off screen: {what}")
        drawn = (focused["outlineStyle"] != "none" and focused["outlineWidth"] > 0) or focused["boxShadow"] not in ("", "none")
        if not drawn:
            problems.append(f"has no visible focus outline (outline-style {focused['outlineStyle']}): {what}")
    for index, html in enumerate(expected):
        if str(index) not in reached:
            problems.append(f"cannot be reached with Tab: {html}")
    return problems


def main() -> int:
    arguments = parse_arguments()
    try:
        browser = start_browser(arguments)
    except WebDriverException as error:
        print(f"axe_check: Chromium did not start through chromedriver: {error.msg}", file=sys.stderr)
        return 2
    pages = []
    try:
        axe = Axe(browser, arguments.axe_script) if arguments.axe_script else Axe(browser)
        for page in arguments.pages:
            url = address(page)
            try:
                browser.get(url)
                found = violations(browser, axe)
                keyboard = [] if arguments.no_keyboard else keyboard_problems(browser)
            except WebDriverException as error:
                print(f"axe_check: could not check {url}: {error.msg}", file=sys.stderr)
                return 2
            pages.append({"url": url, "violations": found, "keyboard": keyboard})
    finally:
        browser.quit()
    print(json.dumps({"pages": pages}, indent=2))
    return 1 if any(page["violations"] or page["keyboard"] for page in pages) else 0


if __name__ == "__main__":
    sys.exit(main())
