"""The platforms' answer models are built on their first parse, not when a provider process imports them."""

from __future__ import annotations

import subprocess
import sys

FIRST_PARSE = """
import threading
from pulumi_mltrain import answers
from pulumi_mltrain.alaya.wire import answers as alaya
from pulumi_mltrain.modelarts.wire import answers as modelarts
models = [m for module in (alaya, modelarts) for m in vars(module).values()
          if isinstance(m, type) and issubclass(m, answers.Answer) and m.__module__ == module.__name__]
assert len(models) > 20, models
built = [m.__name__ for m in models if m.__pydantic_complete__]
assert not built, f"built at import: {built}"
start, found = threading.Barrier(8), []
def read(i):
    start.wait()
    found.append(answers.parse(alaya.TaskDetail, {"id": f"t-{i}", "status": "RUNNING", "createdTime": "x", "extra": i},
                               platform="Alaya NeW", call="GET /detail"))
threads = [threading.Thread(target=read, args=(i,)) for i in range(8)]
for t in threads: t.start()
for t in threads: t.join(30)
assert sorted((d.id, d.status, d.created_time, d.model_extra["extra"]) for d in found) == [
    (f"t-{i}", "RUNNING", "x", i) for i in range(8)], found
assert alaya.TaskDetail.__pydantic_complete__ and not alaya.TaskRow.__pydantic_complete__
try:
    answers.parse(alaya.TaskRow, {"name": "n"}, platform="Alaya NeW", call="GET /list")
except Exception as err:
    print(type(err).__name__, err)
"""


def test_answer_models_are_built_on_first_parse_by_one_thread() -> None:
    done = subprocess.run([sys.executable, "-c", FIRST_PARSE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("UnexpectedAnswer ") and "id is required" in done.stdout, done.stdout
