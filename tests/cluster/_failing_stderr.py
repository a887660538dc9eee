"""A standard error that fails on a stage's report: a failure at a chosen point of a fit
(``verbose=1`` prints one line per stage), through public behaviour only."""


class FailingStderr:
    """Raises ``OSError`` when a line written names ``stage``."""

    def __init__(self, stage):
        self.stage = stage

    def write(self, text):
        if self.stage in text:
            raise OSError("the output is gone")
        return len(text)

    def flush(self):
        pass
