"""One problem found in the data: file, field path, message, severity and the check that found it."""

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    file: str
    path: str
    message: str
    severity: str = "error"
    check: str = "schema"

    def __str__(self):
        where = f"{self.file}: {self.path}" if self.path else self.file
        prefix = {"warning": "warning: ", "info": "note: "}.get(self.severity, "")
        return f"{prefix}{where}: {self.message}"
