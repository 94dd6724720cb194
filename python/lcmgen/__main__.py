"""python -m lcmgen report MODEL SOLUTION.h5 [PANEL.csv] -o report.html: an HTML report with pictures
(docs/python.md, "A report with pictures")."""
import sys

from ._report import main

if __name__ == "__main__":
    sys.exit(main())
