"""The unsubscribe link's token: signed (``django.core.signing``, the server's secret
key), so it names its member (or an invited address's hash) and the kind of mail without
a lookup table, and cannot be made up for anyone else. It does not expire: an
unsubscribe link keeps working as long as the mail is kept. It carries an id and a kind,
never an address: a token in a URL ends up in logs."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.core import signing

from server.mail.kinds import ALL_KINDS

SALT = "dekabes.mail.unsubscribe"


def address_hash(address: str) -> str:
    return hashlib.sha256(address.strip().lower().encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Unsubscribe:
    kind: str
    user_id: int | None = None  # a member's mail
    address_hash: str | None = None  # an invite


def make_token(*, kind: str, user_id: int | None = None, address: str | None = None) -> str:
    payload: dict = {"k": kind}
    if user_id is not None:
        payload["u"] = user_id
    else:
        assert address is not None
        payload["a"] = address_hash(address)
    return signing.dumps(payload, salt=SALT, compress=True)


def read_token(token: str) -> Unsubscribe | None:
    """What ``token`` unsubscribes from; None for a token this server did not sign."""
    try:
        payload = signing.loads(token, salt=SALT)
    except signing.BadSignature:
        return None
    if not isinstance(payload, dict) or payload.get("k") not in ALL_KINDS:
        return None
    user_id, hashed = payload.get("u"), payload.get("a")
    if isinstance(user_id, int) and not isinstance(user_id, bool):
        return Unsubscribe(kind=payload["k"], user_id=user_id)
    if isinstance(hashed, str) and len(hashed) == 64:
        return Unsubscribe(kind=payload["k"], address_hash=hashed)
    return None
