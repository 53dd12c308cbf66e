"""agtool lab: a tool call is a contract. Check before the call, check again after."""

import sys

# jsonschema checks the "iri" format with rfc3987_syntax when it is installed (JupyterLab's
# jupyter-events pulls it in), and that module builds an Earley parser for RFC 3987 when it is
# imported: 1 to 4 s of CPU in every process that imports jsonschema (a grader, its sandbox
# zygote, a kernel, a test worker). No contract here uses "format", so the lab keeps it out:
# a None in sys.modules makes the import fail, which jsonschema treats as "not installed".
# Not done if something imported it already.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
