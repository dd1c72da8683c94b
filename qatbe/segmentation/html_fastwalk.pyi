from .html_walk import Block, Box, Ctx

class FastWalker:
    root: Ctx
    ctxs: list[Ctx]
    ctx: Ctx
    blocks: list[Block]
    box: Box
    boxes: list[Box]
    page_chars: int
    def walk(self, body_id: int) -> None: ...

def fast_walk(body_id: int) -> FastWalker: ...

class ByteLocator:
    def __init__(self, html: str, data: bytes) -> None: ...
    def find(self, text: str) -> int: ...

def evidence_in_c(tag: str, attrs: dict[str, str | None]) -> tuple[int, bool, bool, bool] | None: ...
def hidden_in_c(attrs: dict[str, str | None], by_class: bool, sup: bool) -> bool | None: ...
