import os
import sys

# Test-only reference implementations live beside the tests.
sys.path.insert(0, os.path.dirname(__file__))
