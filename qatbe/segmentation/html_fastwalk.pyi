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

def collapse_in_c(raw: bytes) -> tuple[bytes, bool]: ...
def evidence_in_c(tag: str, attrs: dict[str, str | None]) -> tuple[int, bool, bool, bool] | None: ...
def hidden_in_c(attrs: dict[str, str | None], by_class: bool, sup: bool) -> bool | None: ...
