#!/usr/bin/env python3
"""Checks that the Kotlin library's JUnit suite ran every test it has.

    python3 tests/scripts/junit-check.py REPORTS_DIR SOURCES_DIR MINIMUM_FILE

REPORTS_DIR holds Maven Surefire's TEST-*.xml reports, SOURCES_DIR the Kotlin test sources and
MINIMUM_FILE the committed minimum count of executed test cases (one integer; `#` comments).
Fails (exit 1), naming what to fix, when:

* a test method of the sources (`@Test`, `@ParameterizedTest`, `@TestFactory`, `@RepeatedTest`)
  has no executed test case in the reports: JUnit skips a `@Test` method that returns a value
  (a Kotlin expression body such as `= runBlocking { ... }` whose last expression is not Unit)
  with only a warning, so such a test would otherwise be lost silently;
* a test case was skipped (`@Disabled`, a failed assumption), failed or errored;
* fewer test cases ran than the committed minimum (a table-driven test lost rows, a class was
  not picked up).
"""
import pathlib
import re
import sys
import xml.etree.ElementTree as ET

ANNOTATION = re.compile(
    r"@(Test|ParameterizedTest|TestFactory|RepeatedTest)\b[^\n]*\n"  # the test annotation
    r"(?:\s*@[^\n]*\n)*"  # further annotations
    r"\s*(?:(?:public|internal|open|override|suspend)\s+)*fun\s+`?([^`(\s]+)`?"
)


def source_tests(sources: pathlib.Path):
    """(class name with package, method name, annotation) of every test method."""
    found = []
    for path in sorted(sources.rglob("*.kt")):
        text = path.read_text(encoding="utf-8")
        package = re.search(r"^package\s+([\w.]+)", text, re.M)
        prefix = package.group(1) + "." if package else ""
        # Test classes in these sources are top-level classes, one or more per file: attribute each
        # method to the nearest class declared before it.
        classes = [(m.start(), m.group(1)) for m in re.finditer(r"^(?:\w+\s+)*class\s+(\w+)", text, re.M)]
        for m in ANNOTATION.finditer(text):
            owner = [name for start, name in classes if start < m.start()]
            if not owner:
                continue
            found.append((prefix + owner[-1], m.group(2), m.group(1)))
    return found


def report_cases(reports: pathlib.Path):
    """(classname, name, outcome) of every test case of the Surefire reports."""
    cases = []
    for path in sorted(reports.glob("TEST-*.xml")):
        for case in ET.parse(path).getroot().iter("testcase"):
            outcome = "passed"
            for tag in ("skipped", "failure", "error"):
                if case.find(tag) is not None:
                    outcome = tag
            cases.append((case.get("classname", ""), case.get("name", ""), outcome))
    return cases


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    reports, sources, minimum_file = (pathlib.Path(a) for a in sys.argv[1:])
    minimum_lines = [
        line.split("#", 1)[0].strip() for line in minimum_file.read_text(encoding="utf-8").splitlines()
    ]
    minimum = int(next(line for line in minimum_lines if line))
    cases = report_cases(reports)
    tests = source_tests(sources)
    problems = []
    if not cases:
        problems.append(f"no Surefire reports in {reports}: did the suite run?")
    for classname, name, outcome in cases:
        if outcome != "passed":
            problems.append(f"{classname}.{name}: {outcome}")
    executed = [(c, n) for c, n, o in cases if o == "passed"]
    for classname, method, annotation in tests:
        if not any(c == classname and (n == method or n.startswith(method + "(") or n.startswith(method + "[")) for c, n in executed):
            hint = (
                " (a @Test method must return Unit: give it a block body or `runBlocking<Unit>`)"
                if annotation == "Test"
                else ""
            )
            problems.append(f"{classname}.{method} (@{annotation}) was discovered in the sources but not executed{hint}")
    if len(executed) < minimum:
        problems.append(
            f"{len(executed)} test cases executed, fewer than the committed minimum of {minimum} ({minimum_file})"
        )
    if problems:
        for p in problems:
            print(f"FAIL: {p}")
        return 1
    note = f"; raise {minimum_file} to {len(executed)}" if len(executed) > minimum else ""
    print(
        f"JUnit: {len(executed)} test cases executed, {len(tests)} test methods of the sources all ran, "
        f"none skipped (minimum {minimum}{note})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
