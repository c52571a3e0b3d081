#!/usr/bin/env python3
"""A small LTI 1.3 Advantage platform (an "LMS") for clsfile-server's tests.

lti1p3platform 0.1.8 does the LTI parts: the platform key and JWKS, the login
initiation URL, the id_token claims (user, resource link, context, AGS, NRPS,
deep linking), the access token and the deep-linking response's signature.
This file adds what 0.1.8 lacks: the HTTP server, storage (users, contexts,
resource links, line items, scores), the checks it does not make on the
tool's requests, AGS/NRPS endpoints, Dynamic Registration, tampered launches
and a JSON control API under /_test/ for the Swift tests. See README.md.

Python 3.11 stdlib plus lti1p3platform's dependencies only.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import re
import secrets
import signal
import sys
import threading
import time
import traceback
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlencode, urlsplit

import jwt
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
DL_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
DL_ITEMS = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"
DL_DATA = "https://purl.imsglobal.org/spec/lti-dl/claim/data"
AGS_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/"
S_LINEITEM = AGS_SCOPE + "lineitem"
S_LINEITEM_RO = AGS_SCOPE + "lineitem.readonly"
S_RESULT_RO = AGS_SCOPE + "result.readonly"
S_SCORE = AGS_SCOPE + "score"
S_NRPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
COURSE = "http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
MT_LINEITEM = "application/vnd.ims.lis.v2.lineitem+json"
MT_LINEITEMS = "application/vnd.ims.lis.v2.lineitemcontainer+json"
MT_SCORE = "application/vnd.ims.lis.v1.score+json"
MT_RESULTS = "application/vnd.ims.lis.v2.resultcontainer+json"
MT_MEMBERS = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
ACTIVITY = {"Initialized", "Started", "InProgress", "Submitted", "Completed"}
GRADING = {"FullyGraded", "Pending", "PendingManual", "Failed", "NotReady"}
TAMPERS = {
    "signature", "unknown_kid", "unpublished_kid", "alg_none", "alg_hs256",
    "expired", "future_iat", "wrong_aud", "extra_aud_without_azp", "wrong_iss",
    "unknown_deployment", "deployment_mismatch", "wrong_nonce", "replay",
    "message_type", "version", "no_sub", "target_link_uri", "state", "no_roles",
}


class Refusal(Exception):
    """A check failed: answered as `status` with `text` saying which."""

    def __init__(self, text: str, status: int = 400):
        super().__init__(text)
        self.text, self.status = text, status


# ---------------------------------------------------------------- keys

class Key:
    """An RSA platform key, its PEMs and its kid (jwcrypto's RFC 7638 thumbprint, as 0.1.8 uses)."""

    def __init__(self) -> None:
        private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.private_pem = private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption()).decode()
        self.public_pem = private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
        self.jwk = Registration.get_jwk(self.public_pem)
        self.kid = self.jwk["kid"]


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unverified(token: str) -> tuple[dict, dict]:
    """Header and claims of a JWT, without checking anything (for logs and pre-checks)."""
    try:
        return jwt.get_unverified_header(token), jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError as exc:
        raise Refusal(f"malformed JWT: {exc}") from exc


# ---------------------------------------------------------------- state

class State:
    """Everything the platform remembers. One lock; never held across an outgoing HTTP call
    (the tool calls back into /jwks and /token while the harness waits on it)."""

    def __init__(self, base: str, tool: str, client_id: str, deployment_id: str) -> None:
        self.lock = threading.RLock()
        self.base, self.tool = base, tool
        self.current = Key()
        self.published = [self.current]          # every key in GET /jwks
        self.registration = {                    # the tool as registered on this platform
            "client_id": client_id, "deployment_id": deployment_id,
            "login_url": tool + "/lti/login", "redirect_uris": [tool + "/lti/launch"],
            "launch_url": tool + "/lti/launch", "deeplink_url": tool + "/lti/launch",
            "jwks_url": tool + "/lti/jwks",
        }
        self.users: dict[str, dict] = {}
        self.contexts: dict[str, dict] = {}
        self.members: dict[str, dict[str, list]] = {}      # context -> sub -> roles
        self.links: dict[str, dict[str, dict]] = {}        # context -> resource link id -> link
        self.lineitems: dict[str, dict[str, dict]] = {}    # context -> line item id -> item
        self.scores: dict[tuple, list] = {}                # (context, item, sub) -> [score…]
        self.pending: dict[str, dict] = {}                 # lti_message_hint -> launch
        self.dl_data: set[str] = set()                     # `data` values sent in DL requests
        self.dl_nonces: set[str] = set()                   # deep-linking response nonces seen
        self.jtis: set[str] = set()                        # client assertion jti already used
        self.reg_tokens: set[str] = set()                  # Dynamic Registration tokens not used yet
        self.fail_scores = {"count": 0, "status": 500}
        self.counter = 0
        self.reset_log()

    def reset_log(self) -> None:
        self.log = {"jwks_hits": 0, "auth_requests": [], "token_requests": [],
                    "deep_link_returns": [], "scores": [], "registrations": []}

    def next_id(self) -> int:
        with self.lock:
            self.counter += 1
            return self.counter

    def lti_registration(self) -> Registration:
        """A fresh lti1p3platform Registration: no cached tool key set, so a rotated tool key is seen."""
        r = self.registration
        return (Registration().set_iss(self.base).set_client_id(r["client_id"])
                .set_deployment_id(r["deployment_id"]).set_launch_url(r["launch_url"])
                .set_deeplink_launch_url(r["deeplink_url"]).set_oidc_login_url(r["login_url"])
                .set_tool_key_set_url(r["jwks_url"])
                .set_platform_public_key(self.current.public_pem)
                .set_platform_private_key(self.current.private_pem))

    def conf(self) -> "PlatformConf":
        return PlatformConf(registration=self.lti_registration())

    def user(self, sub: str) -> dict:
        return self.users.setdefault(sub, {"sub": sub, "name": sub, "roles": [LEARNER]})

    def context(self, cid: str) -> dict:
        return self.contexts.setdefault(cid, {"id": cid, "title": cid, "label": cid})


# ---------------------------------------------------------------- lti1p3platform glue

class PlatformConf(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kwargs):
        self._registration = kwargs["registration"]

    def get_registration_by_params(self, **kwargs):
        return self._registration


class DictRequest(Request):
    """0.1.8's Request wrapper over the already parsed auth parameters."""

    def build_metadata(self, request):
        return {"method": "POST", "form_data": request, "get_data": request, "headers": {},
                "content_type": "application/x-www-form-urlencoded", "path": "/auth", "json": None}


class Launch(LTIAdvantageMessageLaunchAbstract):
    def render_launch_form(self, launch_data, **kwargs):
        return launch_data     # the harness posts it itself


class Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs):
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url):
        return url


# ---------------------------------------------------------------- the platform

class Platform:
    def __init__(self, st: State) -> None:
        self.st = st

    # -- URLs
    def lineitems_url(self, ctx: str) -> str:
        return f"{self.st.base}/ags/{ctx}/lineitems"

    def lineitem_json(self, ctx: str, item: dict) -> dict:
        out = {k: v for k, v in item.items() if k != "id" and v is not None}
        out["id"] = f"{self.lineitems_url(ctx)}/{item['id']}"
        return out

    # -- step 1: login initiation (built by 0.1.8's OIDCLoginAbstract)
    def login_url(self, pending: dict) -> str:
        st = self.st
        login = Login(None, st.conf())
        login.set_lti_message_hint(hint=pending["hint"])
        if pending["message"] == "deeplink":
            login.set_deeplinking_launch_url()
        url = login.initiate_login(pending["sub"])
        if pending["login_deployment"] != st.registration["deployment_id"]:
            # unknown_deployment: the login carries the unregistered deployment too
            q = dict(parse_qsl(urlsplit(url).query))
            q["lti_deployment_id"] = pending["login_deployment"]
            url = url.split("?")[0] + "?" + urlencode(q)
        return url

    # -- step 2: the OIDC authorization endpoint
    def authorize(self, params: dict) -> dict:
        """Checks the tool's auth request, builds and tampers the id_token.
        Returns {redirect_uri, id_token, state, claims, pending} or raises Refusal."""
        st = self.st
        entry = {"params": params, "time": time.time()}
        with st.lock:
            st.log["auth_requests"].append(entry)
        try:
            expect = {"scope": "openid", "response_type": "id_token",
                      "response_mode": "form_post", "prompt": "none",
                      "client_id": st.registration["client_id"]}
            for name, value in expect.items():
                if params.get(name) != value:
                    raise Refusal(f"{name} must be {value!r}, got {params.get(name)!r}")
            if params.get("redirect_uri") not in st.registration["redirect_uris"]:
                raise Refusal(f"redirect_uri {params.get('redirect_uri')!r} is not registered")
            for name in ("state", "nonce"):
                if not params.get(name):
                    raise Refusal(f"{name} missing")
            with st.lock:
                pending = st.pending.get(params.get("lti_message_hint", ""))
            if pending is None:
                raise Refusal(f"lti_message_hint {params.get('lti_message_hint')!r} unknown")
            if params.get("login_hint") != pending["sub"]:
                raise Refusal(f"login_hint {params.get('login_hint')!r} is not the user of the launch")
            token, claims = self.id_token(params, pending)
        except Refusal as exc:
            entry["refusal"] = exc.text
            raise
        entry["ok"] = True
        return {"redirect_uri": params["redirect_uri"], "id_token": token, "claims": claims,
                "state": "forged-" + secrets.token_urlsafe(8) if pending["tamper"] == "state"
                else params["state"], "pending": pending}

    def id_token(self, params: dict, p: dict) -> tuple[str, dict]:
        st = self.st
        with st.lock:
            user = dict(st.user(p["sub"]))
            ctx = dict(st.context(p["context"]))
            roles = p["roles"] if p["roles"] is not None else user.get("roles", [])
            st.members.setdefault(ctx["id"], {})[p["sub"]] = roles
            link = p.get("resource_link")
            lineitem = None
            custom = p.get("custom")
            if link:
                stored = st.links.setdefault(ctx["id"], {}).setdefault(link["id"], dict(link))
                # As an LMS does: a link made by deep linking launches with its item's custom parameters.
                custom = custom or stored.get("custom")
                for item in st.lineitems.get(ctx["id"], {}).values():
                    if item.get("resourceLinkId") == link["id"]:
                        lineitem = f"{self.lineitems_url(ctx['id'])}/{item['id']}"
            if p["message"] == "deeplink":
                p["dl_data"] = "dl-" + secrets.token_urlsafe(12)
                st.dl_data.add(p["dl_data"])
            conf = st.conf()
        launch = Launch(DictRequest(params), conf)
        launch.set_user_data(p["sub"], roles, full_name=user.get("name"), email_address=user.get("email"))
        launch.set_extra_claims({k: user[k] for k in ("given_name", "family_name") if user.get(k)})
        launch.set_launch_context_claim(ctx["id"], [COURSE], ctx.get("title"), ctx.get("label"))
        if p["message"] == "resource":
            launch.set_resource_link_claim(link["id"], None, link.get("title"))
        if custom:
            launch.set_custom_parameters_claim(custom)
        launch.set_ags(self.lineitems_url(ctx["id"]), lineitem)
        launch.set_nrps(f"{st.base}/nrps/{ctx['id']}")
        if p["message"] == "deeplink":
            # 0.1.8 puts extra_data as `data` unchanged; the spec's `data` is a string, so pass one.
            launch.set_dl(f"{st.base}/dl/return", "Add a clsfile assignment", "",
                          {"ltiResourceLink"}, p["dl_data"])
        token = launch.lti_launch()["id_token"]
        return self.tamper(token, p)

    # -- what the tampers do to the signed id_token (step 3)
    def tamper(self, token: str, p: dict) -> tuple[str, dict]:
        st, kind = self.st, p["tamper"]
        header, claims = unverified(token)
        claim_edits = {
            "expired": lambda c: c.update(iat=int(time.time()) - 420, exp=int(time.time()) - 120),
            "future_iat": lambda c: c.update(iat=int(time.time()) + 600, exp=int(time.time()) + 900),
            "wrong_aud": lambda c: c.update(aud="not-" + c["aud"], azp="not-" + c["aud"]),
            "extra_aud_without_azp": lambda c: (c.update(aud=[c["aud"], "other"]), c.pop("azp", None)),
            "wrong_iss": lambda c: c.update(iss="https://wrong-issuer.invalid"),
            "unknown_deployment": lambda c: c.update({LTI + "deployment_id": "not-registered"}),
            "deployment_mismatch": lambda c: c.update({LTI + "deployment_id": "deployment-mismatch"}),
            "wrong_nonce": lambda c: c.update(nonce="wrong-" + secrets.token_urlsafe(8)),
            "message_type": lambda c: c.update({LTI + "message_type": "LtiSubmissionReviewRequest"}),
            "version": lambda c: c.update({LTI + "version": "1.1"}),
            "no_sub": lambda c: c.pop("sub", None),
            "target_link_uri": lambda c: c.update({LTI + "target_link_uri": "https://elsewhere.invalid/lti/launch"}),
            "no_roles": lambda c: c.pop(LTI + "roles", None),
        }
        if kind in claim_edits:
            claim_edits[kind](claims)
            # re-signed with the real key and kid, iat/exp as edited
            token = Registration.encode_and_sign(claims, st.current.private_pem, {"kid": st.current.kid})
        elif kind == "signature":
            token = Registration.encode_and_sign(claims, Key().private_pem, {"kid": st.current.kid})
        elif kind == "unknown_kid":
            # the platform rotates: a fresh key, published only now, signs this and later launches
            fresh = Key()
            with st.lock:
                st.published.append(fresh)
                st.current = fresh
            token = Registration.encode_and_sign(claims, fresh.private_pem, {"kid": fresh.kid})
        elif kind == "unpublished_kid":
            stray = Key()
            token = Registration.encode_and_sign(claims, stray.private_pem, {"kid": stray.kid})
        elif kind == "alg_none":
            head = {"alg": "none", "typ": "JWT", "kid": header.get("kid")}
            token = f"{b64url(json.dumps(head).encode())}.{b64url(json.dumps(claims).encode())}."
        elif kind == "alg_hs256":
            # the classic key confusion: HMAC keyed with the platform's public key PEM
            # (PyJWT refuses to do this, so it is built by hand)
            head = {"alg": "HS256", "typ": "JWT", "kid": header.get("kid")}
            signing_input = f"{b64url(json.dumps(head).encode())}.{b64url(json.dumps(claims).encode())}"
            mac = hmac.new(st.current.public_pem.encode(), signing_input.encode(), hashlib.sha256).digest()
            token = f"{signing_input}.{b64url(mac)}"
        return token, claims

    # -- the control API's launch: the harness is the browser
    def run_launch(self, body: dict) -> dict:
        st = self.st
        tamper = body.get("tamper")
        if tamper and tamper not in TAMPERS:
            raise Refusal(f"unknown tamper {tamper!r}; one of {sorted(TAMPERS)}")
        message = body.get("message", "resource")
        if message not in ("resource", "deeplink"):
            raise Refusal("message must be resource or deeplink")
        for name in ("sub", "context"):
            if not body.get(name):
                raise Refusal(f"{name} missing")
        if body.get("resource_link") is not None and not (body["resource_link"] or {}).get("id"):
            raise Refusal("resource_link needs an id")
        if body.get("login_method", "GET") not in ("GET", "POST"):
            raise Refusal("login_method must be GET or POST")
        registered = st.registration["deployment_id"]
        pending = {
            "hint": "msg-" + secrets.token_urlsafe(12), "sub": body["sub"], "context": body["context"],
            "message": message, "roles": body.get("roles"), "custom": body.get("custom"),
            "tamper": tamper,
            "resource_link": body.get("resource_link") or ({"id": "rl-default", "title": "Default link"}
                                                          if message == "resource" else None),
            "login_deployment": "not-registered" if tamper == "unknown_deployment" else registered,
        }
        with st.lock:
            st.pending[pending["hint"]] = pending
        jar = Jar() if body.get("cookies", True) else None
        # Milliseconds of the tool's two answers, each timed around its HTTP call (on loopback: the
        # tool's time plus the socket), and of the whole launch, the platform's own part included.
        timings: dict = {}
        out: dict = {"lti_message_hint": pending["hint"], "timings": timings}
        started = time.perf_counter()

        # (1) login initiation at the tool (GET, or POST form as Moodle does); it must redirect to our /auth
        login_url = self.login_url(pending)
        before = time.perf_counter()
        if body.get("login_method") == "POST":
            r = browse("POST", login_url.split("?")[0], jar, data=dict(parse_qsl(urlsplit(login_url).query)))
        else:
            r = browse("GET", login_url, jar)
        timings["login_ms"] = (time.perf_counter() - before) * 1000
        location = r.headers.get("Location")
        out["login"] = {"url": login_url, "status": r.status_code, "location": location,
                        "set_cookie": set_cookies(r)}
        if r.status_code != 302 or not location or not location.startswith(st.base + "/auth"):
            out["error"] = "the tool's login did not answer 302 to the platform's /auth"
            out["login"]["body"] = r.text
            return out

        # (2) our own authorization endpoint, called directly
        params = dict(parse_qsl(urlsplit(location).query, keep_blank_values=True))
        out["auth"] = {"params": params}
        try:
            auth = self.authorize(params)
        except Refusal as exc:
            out["auth"]["refusal"] = exc.text
            return out
        out["id_token_claims"] = auth["claims"]
        out["id_token_header"] = jwt.get_unverified_header(auth["id_token"])
        out["id_token"] = auth["id_token"]

        # (3) the form post to the tool's redirect_uri; never follow its redirect
        def post() -> dict:
            resp = browse("POST", auth["redirect_uri"], jar,
                          data={"id_token": auth["id_token"], "state": auth["state"]})
            return {"status": resp.status_code, "location": resp.headers.get("Location"),
                    "content_type": resp.headers.get("Content-Type"), "body": resp.text,
                    "set_cookie": set_cookies(resp)}
        before = time.perf_counter()
        out["launch"] = post()
        timings["launch_ms"] = (time.perf_counter() - before) * 1000
        timings["total_ms"] = (time.perf_counter() - started) * 1000
        if tamper == "replay":
            out["first_launch"] = out["launch"]
            out["launch"] = post()
        return out

    # -- OAuth 2 client credentials (step 0 of every service call)
    def token(self, form: dict) -> dict:
        st = self.st
        entry = {"time": time.time(), "scope_requested": form.get("scope", "").split()}
        with st.lock:
            st.log["token_requests"].append(entry)
        try:
            if form.get("grant_type") != "client_credentials":
                raise Refusal("unsupported_grant_type: grant_type must be client_credentials")
            if form.get("client_assertion_type") != ASSERTION_TYPE:
                raise Refusal(f"invalid_client: client_assertion_type must be {ASSERTION_TYPE}")
            if not form.get("scope"):
                raise Refusal("invalid_scope: scope missing")
            assertion = form.get("client_assertion", "")
            header, claims = unverified(assertion)
            entry["assertion_header"], entry["assertion"] = header, claims
            client_id = st.registration["client_id"]
            if not (claims.get("iss") == claims.get("sub") == client_id):
                raise Refusal(f"invalid_client: iss and sub must both be {client_id!r}")
            aud = claims.get("aud")
            if (st.base + "/token") not in (aud if isinstance(aud, list) else [aud]):
                raise Refusal(f"invalid_client: aud must be {st.base}/token, got {aud!r}")
            if not isinstance(claims.get("exp"), (int, float)) or claims["exp"] <= time.time():
                raise Refusal("invalid_client: exp missing or past")
            if not claims.get("jti"):
                raise Refusal("invalid_client: jti missing")
            with st.lock:
                if claims["jti"] in st.jtis:
                    raise Refusal("invalid_client: jti already used")
                st.jtis.add(claims["jti"])
            try:
                # a fresh conf fetches the tool's JWKS now; 0.1.8 checks the signature (kid + alg)
                answer = dict(st.conf().get_access_token(form))
            except Exception as exc:   # 0.1.8 raises LtiException, PyJWT errors, …
                raise Refusal(f"invalid_client: {type(exc).__name__}: {exc}") from exc
        except Refusal as exc:
            entry["refusal"] = exc.text
            raise
        entry["scope_granted"] = answer["scope"].split()
        entry["ok"] = True
        return answer

    def bearer(self, headers, allowed: list[str]) -> dict:
        """Checks an access token from our /token (any published key, so one issued before a
        rotate-key stays good) and that it holds one of `allowed`, the endpoint's own scopes."""
        auth = headers.get("Authorization", "")
        if not auth.lower().startswith("bearer "):
            raise Refusal("bearer token missing", 401)
        token = auth[7:].strip()
        # 0.1.8 signs access tokens without a kid, so try each published key
        kid = unverified(token)[0].get("kid")
        claims, error = None, "no published key"
        for key in [k for k in self.st.published if kid in (None, k.kid)]:
            try:
                claims = jwt.decode(token, key.public_pem, algorithms=["RS256"],
                                    options={"require": ["exp", "iss", "sub"]})
                break
            except jwt.PyJWTError as exc:
                error = str(exc)
        if claims is None:
            raise Refusal(f"access token: {error}", 401)
        if claims["iss"] != self.st.base or claims["sub"] != self.st.registration["client_id"]:
            raise Refusal("access token: not issued to this tool", 401)
        if not set(claims.get("scopes", "").split()) & set(allowed):
            raise Refusal(f"access token lacks scope {' or '.join(allowed)}", 403)
        return claims

    # -- Deep Linking response
    def deep_link(self, token: str) -> dict:
        st = self.st
        entry: dict = {"time": time.time()}
        with st.lock:
            st.log["deep_link_returns"].append(entry)
        try:
            header, claims = unverified(token)
            entry["header"], entry["claims"] = header, claims
            conf = st.conf()
            try:
                conf.validate_deeplinking_resp({"JWT": token})   # signature, exp, type, item types
            except Exception as exc:
                raise Refusal(f"{type(exc).__name__}: {exc}") from exc
            reg = st.registration
            checks = [
                (claims.get("iss") == reg["client_id"], f"iss must be the client_id {reg['client_id']!r}"),
                (st.base in (claims["aud"] if isinstance(claims.get("aud"), list) else [claims.get("aud")]),
                 f"aud must be the platform issuer {st.base}"),
                (bool(claims.get("nonce")), "nonce missing"),
                (claims.get(LTI + "deployment_id") == reg["deployment_id"],
                 f"deployment_id must be {reg['deployment_id']!r}"),
                (claims.get(LTI + "message_type") == "LtiDeepLinkingResponse", "message_type"),
                (claims.get(LTI + "version") == "1.3.0", "version must be 1.3.0"),
                (claims.get(DL_DATA) in st.dl_data, "data does not echo a deep-linking request's data"),
            ]
            for ok, text in checks:
                if not ok:
                    raise Refusal(text)
            with st.lock:
                if claims["nonce"] in st.dl_nonces:
                    raise Refusal("nonce already used: this deep-linking response was posted before")
                st.dl_nonces.add(claims["nonce"])
            ctx = next((p["context"] for p in list(st.pending.values())
                        if p.get("dl_data") == claims.get(DL_DATA)), None)
            made = {"context": ctx, "resource_links": [], "lineitems": []}
            with st.lock:
                for item in claims.get(DL_ITEMS) or []:
                    if item.get("type") != "ltiResourceLink":
                        continue
                    rl = {"id": f"rl-{st.next_id()}", "title": item.get("title"), "url": item.get("url"),
                          "custom": item.get("custom")}
                    st.links.setdefault(ctx, {})[rl["id"]] = rl
                    made["resource_links"].append(rl)
                    if isinstance(item.get("lineItem"), dict):
                        li = item["lineItem"]
                        stored = {"id": str(st.next_id()), "label": li.get("label") or item.get("title"),
                                  "scoreMaximum": li.get("scoreMaximum"), "resourceId": li.get("resourceId"),
                                  "tag": li.get("tag"), "resourceLinkId": rl["id"]}
                        st.lineitems.setdefault(ctx, {})[stored["id"]] = stored
                        made["lineitems"].append(self.lineitem_json(ctx, stored))
        except Refusal as exc:
            entry["refusal"] = exc.text
            raise
        entry["made"] = made
        return made

    # -- AGS. Written directly, not as a subclass of 0.1.8's AssignmentsGradesService: its scope
    #    check accepts any AGS scope for any endpoint, it validates no score, ignores the request
    #    Content-Type, answers scores with the line-item media type, and its paging raises
    #    TypeError (`page + 1` on a query-string str).
    def ags(self, method: str, ctx: str, rest: list[str], query: dict, headers, body: bytes):
        st = self.st
        with st.lock:
            if ctx not in st.contexts:
                raise Refusal(f"unknown context {ctx}", 404)
            items = st.lineitems.setdefault(ctx, {})
        if not rest:                                    # the container
            if method == "GET":
                self.bearer(headers, [S_LINEITEM, S_LINEITEM_RO])
                found = [i for i in list(items.values())
                         if all(query.get(q) in (None, i.get(f)) for q, f in
                                (("resource_link_id", "resourceLinkId"), ("resource_id", "resourceId"),
                                 ("tag", "tag")))]
                page, link = paged(found, query, self.lineitems_url(ctx))
                return 200, MT_LINEITEMS, [self.lineitem_json(ctx, i) for i in page], link
            if method == "POST":
                self.bearer(headers, [S_LINEITEM])
                data = json_body(body)
                check_lineitem(data)
                with st.lock:
                    stored = {k: data.get(k) for k in ("label", "scoreMaximum", "resourceId", "tag",
                                                       "resourceLinkId", "startDateTime", "endDateTime")}
                    stored["id"] = str(st.next_id())
                    items[stored["id"]] = stored
                return 201, MT_LINEITEM, self.lineitem_json(ctx, stored), None
            raise Refusal("method not allowed", 405)
        item = items.get(rest[0])
        if item is None:
            raise Refusal(f"unknown line item {rest[0]}", 404)
        if len(rest) == 1:
            if method == "GET":
                self.bearer(headers, [S_LINEITEM, S_LINEITEM_RO])
                return 200, MT_LINEITEM, self.lineitem_json(ctx, item), None
            if method == "PUT":
                self.bearer(headers, [S_LINEITEM])
                data = json_body(body)
                check_lineitem(data)
                with st.lock:
                    item.update({k: data.get(k, item.get(k)) for k in
                                 ("label", "scoreMaximum", "resourceId", "tag", "resourceLinkId",
                                  "startDateTime", "endDateTime")})
                return 200, MT_LINEITEM, self.lineitem_json(ctx, item), None
            if method == "DELETE":
                self.bearer(headers, [S_LINEITEM])
                with st.lock:
                    items.pop(rest[0], None)
                return 204, None, None, None
            raise Refusal("method not allowed", 405)
        if rest[1:] == ["scores"] and method == "POST":
            return self.score(ctx, item, headers, body)
        if rest[1:] == ["results"] and method == "GET":
            self.bearer(headers, [S_RESULT_RO])
            url = f"{self.lineitems_url(ctx)}/{item['id']}"
            out = []
            with st.lock:
                for (c, i, sub), posted in st.scores.items():
                    if c == ctx and i == item["id"] and query.get("user_id") in (None, sub):
                        last = posted[-1]
                        result = {"id": f"{url}/results/{sub}", "scoreOf": url, "userId": sub}
                        if last.get("scoreGiven") is not None:
                            result.update(resultScore=last["scoreGiven"], resultMaximum=last.get("scoreMaximum"))
                        if last.get("comment"):
                            result["comment"] = last["comment"]
                        out.append(result)
            page, link = paged(out, query, url + "/results")
            return 200, MT_RESULTS, page, link
        raise Refusal("not found", 404)

    def score(self, ctx: str, item: dict, headers, body: bytes):
        st = self.st
        entry: dict = {"time": time.time(), "context": ctx, "lineitem": item["id"]}
        with st.lock:
            st.log["scores"].append(entry)
        try:
            self.bearer(headers, [S_SCORE])
            ctype = headers.get("Content-Type", "").split(";")[0].strip()
            if ctype != MT_SCORE:
                raise Refusal(f"Content-Type must be {MT_SCORE}, got {ctype!r}", 415)
            data = json_body(body)
            entry["body"] = data
            with st.lock:
                if st.fail_scores["count"] > 0:
                    st.fail_scores["count"] -= 1
                    raise Refusal("failing on request (fail-next-scores)", st.fail_scores["status"])
            sub = data.get("userId")
            if sub not in st.members.get(ctx, {}):
                raise Refusal(f"userId {sub!r} is not a member of {ctx}")
            stamp = parse_time(data.get("timestamp"))
            if data.get("activityProgress") not in ACTIVITY:
                raise Refusal(f"activityProgress must be one of {sorted(ACTIVITY)}")
            if data.get("gradingProgress") not in GRADING:
                raise Refusal(f"gradingProgress must be one of {sorted(GRADING)}")
            if data.get("scoreGiven") is not None:
                if not isinstance(data["scoreGiven"], (int, float)) or data["scoreGiven"] < 0:
                    raise Refusal("scoreGiven must be a number ≥ 0")
                if not isinstance(data.get("scoreMaximum"), (int, float)) or data["scoreMaximum"] <= 0:
                    raise Refusal("scoreMaximum (> 0) is required with scoreGiven")
            with st.lock:
                posted = st.scores.setdefault((ctx, item["id"], sub), [])
                # as Moodle: compared in whole seconds, so two posts within one second collide
                if posted and int(parse_time(posted[-1]["timestamp"]).timestamp()) >= int(stamp.timestamp()):
                    raise Refusal("timestamp is not later than the stored score's", 409)
                posted.append(data)
        except Refusal as exc:
            entry["refusal"], entry["status"] = exc.text, exc.status
            raise
        entry["status"] = 200
        return 200, "application/json", {}, None

    # -- NRPS (written directly: 0.1.8 puts `next` in the body and its paging raises TypeError)
    def nrps(self, ctx: str, query: dict, headers):
        st = self.st
        self.bearer(headers, [S_NRPS])
        with st.lock:
            if ctx not in st.contexts:
                raise Refusal(f"unknown context {ctx}", 404)
            members = []
            for sub, roles in st.members.get(ctx, {}).items():
                if query.get("role") and query["role"] not in roles and \
                        not any(r.endswith("#" + query["role"]) for r in roles):
                    continue
                user = st.user(sub)
                m = {"status": "Active", "user_id": sub, "roles": roles}
                m.update({k: user[k] for k in ("name", "given_name", "family_name", "email") if user.get(k)})
                members.append(m)
            context = dict(st.contexts[ctx])
        url = f"{st.base}/nrps/{ctx}"
        page, link = paged(members, query, url)
        return 200, MT_MEMBERS, {"id": url, "context": context, "members": page}, link

    # -- Dynamic Registration
    def openid_configuration(self) -> dict:
        b = self.st.base
        return {
            "issuer": b, "authorization_endpoint": b + "/auth", "token_endpoint": b + "/token",
            "jwks_uri": b + "/jwks", "registration_endpoint": b + "/register",
            "token_endpoint_auth_methods_supported": ["private_key_jwt"],
            "token_endpoint_auth_signing_alg_values_supported": ["RS256"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "response_types_supported": ["id_token"], "subject_types_supported": ["public", "pairwise"],
            "scopes_supported": ["openid", S_LINEITEM, S_LINEITEM_RO, S_RESULT_RO, S_SCORE, S_NRPS],
            "claims_supported": ["iss", "aud", "sub", "name", "given_name", "family_name", "email"],
            "https://purl.imsglobal.org/spec/lti-platform-configuration": {
                "product_family_code": "clsfile-test-lms", "version": "0.1",
                "messages_supported": [{"type": "LtiResourceLinkRequest"},
                                       {"type": "LtiDeepLinkingRequest", "placements": ["ContentArea"]}],
                "variables": ["Context.id", "ResourceLink.id", "User.id"],
            },
        }

    def register(self, headers, body: bytes) -> dict:
        st = self.st
        entry: dict = {"time": time.time()}
        with st.lock:
            st.log["registrations"].append(entry)
        try:
            auth = headers.get("Authorization", "")
            token = auth[7:].strip() if auth.lower().startswith("bearer ") else ""
            with st.lock:
                if token not in st.reg_tokens:
                    raise Refusal("registration token missing, unknown or used", 401)
            data = json_body(body)
            entry["request"] = data
            tc = data.get("https://purl.imsglobal.org/spec/lti-tool-configuration") or {}
            checks = [  # Moodle's requirements, then Canvas's extra ones
                ("id_token" in (data.get("response_types") or []), "response_types must contain id_token"),
                (bool(data.get("initiate_login_uri")), "initiate_login_uri missing"),
                (isinstance(data.get("redirect_uris"), list) and data["redirect_uris"], "redirect_uris missing"),
                (bool(data.get("client_name")), "client_name missing"),
                (bool(data.get("jwks_uri")), "jwks_uri missing"),
                (data.get("token_endpoint_auth_method") == "private_key_jwt",
                 "token_endpoint_auth_method must be private_key_jwt"),
                (bool(tc.get("domain")), "tool configuration domain missing"),
                (bool(tc.get("target_link_uri")), "tool configuration target_link_uri missing"),
                (bool(data.get("scope")), "scope missing"),
                ("client_credentials" in (data.get("grant_types") or []) and
                 "implicit" in (data.get("grant_types") or []), "grant_types must hold implicit and client_credentials"),
                (isinstance(tc.get("claims"), list), "tool configuration claims missing"),
                (isinstance(tc.get("messages"), list), "tool configuration messages missing"),
            ]
            for ok, text in checks:
                if not ok:
                    raise Refusal(text)
            n = st.next_id()
            deeplink = next((m.get("target_link_uri") for m in tc["messages"]
                             if m.get("type") == "LtiDeepLinkingRequest" and m.get("target_link_uri")),
                            tc["target_link_uri"])
            with st.lock:
                st.reg_tokens.discard(token)
                st.registration = {
                    "client_id": f"dr-client-{n}", "deployment_id": f"dr-deployment-{n}",
                    "login_url": data["initiate_login_uri"], "redirect_uris": list(data["redirect_uris"]),
                    "launch_url": tc["target_link_uri"], "deeplink_url": deeplink, "jwks_url": data["jwks_uri"],
                }
            answer = dict(data)
            answer["client_id"] = f"dr-client-{n}"
            answer["https://purl.imsglobal.org/spec/lti-tool-configuration"] = dict(
                tc, deployment_id=f"dr-deployment-{n}")
        except Refusal as exc:
            entry["refusal"] = exc.text
            raise
        entry["answer"] = answer
        return answer

    def registration_start(self, data: dict) -> dict:
        """The address the LMS administrator opens: the tool's registration address (the one
        its administrator gave, `tool_registration_url`, else TOOL/lti/register) with the
        platform's openid_configuration and a registration token appended."""
        st = self.st
        token = Registration.encode_and_sign({"sub": "registration", "jti": secrets.token_urlsafe(12)},
                                             st.current.private_pem, {"kid": st.current.kid}, expiration=3600)
        with st.lock:
            st.reg_tokens.add(token)
        q = urlencode({"openid_configuration": st.base + "/.well-known/openid-configuration",
                       "registration_token": token})
        base = data.get("tool_registration_url") or f"{st.tool}/lti/register"
        return {"url": f"{base}{'&' if '?' in base else '?'}{q}", "registration_token": token}

    # -- /_test/gradebook
    def gradebook(self, ctx: str) -> dict:
        st = self.st
        with st.lock:
            out = []
            for item in st.lineitems.get(ctx, {}).values():
                scores = {sub: {"last": posted[-1], "count": len(posted)}
                          for (c, i, sub), posted in st.scores.items() if c == ctx and i == item["id"]}
                out.append(dict(self.lineitem_json(ctx, item), scores=scores))
            return {"context": ctx, "lineitems": out,
                    "resource_links": list(st.links.get(ctx, {}).values())}


# ---------------------------------------------------------------- helpers

class Jar:
    """The browser's cookie jar for one launch. Hand-made rather than requests' jar: the tool's
    cookies are `Secure`, which a browser still sends to a loopback http:// address and
    http.cookiejar would not. Name=value only; Max-Age=0 or an empty value deletes."""

    def __init__(self) -> None:
        self.cookies: dict[str, str] = {}

    def header(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.cookies.items())

    def store(self, lines: list[str]) -> None:
        for line in lines:
            first, _, attrs = line.partition(";")
            name, _, value = first.strip().partition("=")
            if re.search(r"max-age\s*=\s*0\b", attrs, re.I) or not value:
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = value


def set_cookies(resp) -> list[str]:
    return resp.raw.headers.getlist("Set-Cookie") if resp.raw is not None else []


def browse(method: str, url: str, jar: Jar | None, data: dict | None = None):
    """One browser request: no redirects followed; cookies only from `jar` (None: cookies off)."""
    headers = {"User-Agent": "clsfile-lti-test-platform"}
    if jar and jar.cookies:
        headers["Cookie"] = jar.header()
    with requests.Session() as s:
        s.trust_env = False
        resp = s.request(method, url, data=data, headers=headers, allow_redirects=False, timeout=30)
    if jar is not None:
        jar.store(set_cookies(resp))
    return resp


def paged(items: list, query: dict, url: str):
    """?limit=N&page=K paging; answers (this page, the next page's URL or None)."""
    try:
        limit = int(query.get("limit", 0))
        page = int(query.get("page", 1))
    except ValueError as exc:
        raise Refusal("limit and page must be integers") from exc
    if limit <= 0:
        return items, None
    start = (page - 1) * limit
    nxt = None
    if start + limit < len(items):
        q = {k: v for k, v in query.items() if k != "page"}
        q["page"] = str(page + 1)
        nxt = f"{url}?{urlencode(q)}"
    return items[start:start + limit], nxt


def json_body(body: bytes):
    try:
        data = json.loads(body or b"null")
    except ValueError as exc:
        raise Refusal(f"body is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise Refusal("body must be a JSON object")
    return data


def check_lineitem(data: dict) -> None:
    if not data.get("label"):
        raise Refusal("line item label missing")
    if not isinstance(data.get("scoreMaximum"), (int, float)) or data["scoreMaximum"] <= 0:
        raise Refusal("line item scoreMaximum must be a number > 0")


def parse_time(value) -> datetime:
    """ISO 8601 with a time zone (Z or ±hh:mm), fractional seconds allowed."""
    if not isinstance(value, str) or not re.fullmatch(
            r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", value):
        raise Refusal(f"timestamp must be ISO 8601 with a time zone, got {value!r}")
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


# ---------------------------------------------------------------- HTTP

class Handler(BaseHTTPRequestHandler):
    platform: Platform   # set on the class in main()
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_PUT(self):
        self.dispatch("PUT")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def send(self, status: int, body=None, ctype: str | None = "application/json",
             extra: dict | None = None) -> None:
        data = b""
        if body is not None:
            data = body.encode() if isinstance(body, str) else json.dumps(body, indent=1).encode()
        self.send_response(status)
        if body is not None and ctype:
            self.send_header("Content-Type", ctype)
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def dispatch(self, method: str) -> None:
        p = self.platform
        st = p.st
        url = urlsplit(self.path)
        query = dict(parse_qsl(url.query, keep_blank_values=True))
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        form = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)) \
            if self.headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded") else {}
        parts = [x for x in url.path.split("/") if x]
        try:
            if url.path == "/jwks" and method == "GET":
                with st.lock:
                    st.log["jwks_hits"] += 1
                    keys = [k.jwk for k in st.published]
                return self.send(200, {"keys": keys})
            if url.path == "/auth" and method in ("GET", "POST"):
                auth = p.authorize(dict(query, **form))
                # the harness is the browser too: it posts the form itself and relays the answer
                r = browse("POST", auth["redirect_uri"], None,
                           data={"id_token": auth["id_token"], "state": auth["state"]})
                extra = {k: r.headers[k] for k in ("Location",) if k in r.headers}
                return self.send(r.status_code, r.text, r.headers.get("Content-Type", "text/plain"), extra)
            if url.path == "/token" and method == "POST":
                try:
                    return self.send(200, p.token(form), extra={"Cache-Control": "no-store"})
                except Refusal as exc:
                    code, _, text = exc.text.partition(": ")
                    return self.send(400, {"error": code if text else "invalid_request",
                                           "error_description": text or exc.text})
            if url.path == "/dl/return" and method == "POST":
                return self.send(200, p.deep_link(form.get("JWT", "")))
            if parts[:1] == ["ags"] and len(parts) >= 3 and parts[2] == "lineitems":
                status, ctype, out, link = p.ags(method, parts[1], parts[3:], query, self.headers, body)
                return self.send(status, out, ctype, {"Link": f'<{link}>; rel="next"'} if link else None)
            if parts[:1] == ["nrps"] and len(parts) == 2 and method == "GET":
                status, ctype, out, link = p.nrps(parts[1], query, self.headers)
                return self.send(status, out, ctype, {"Link": f'<{link}>; rel="next"'} if link else None)
            if url.path == "/.well-known/openid-configuration" and method == "GET":
                with st.lock:   # Canvas sends the registration token here too; record whether it came
                    st.log["registrations"].append({"time": time.time(), "openid_configuration": True,
                                                    "authorization": self.headers.get("Authorization")})
                return self.send(200, p.openid_configuration())
            if url.path == "/register" and method == "POST":
                return self.send(200, p.register(self.headers, body))
            if parts[:1] == ["_test"]:
                return self.control(method, "/".join(parts[1:]), query, body)
            raise Refusal("not found", 404)
        except Refusal as exc:
            ctype = "application/json" if parts[:1] == ["_test"] or url.path == "/register" else "text/plain"
            self.send(exc.status, {"error": exc.text} if ctype == "application/json" else exc.text + "\n",
                      ctype)
        except Exception as exc:    # a harness bug: say so instead of hanging the test
            traceback.print_exc()
            self.send(500, f"harness error: {type(exc).__name__}: {exc}\n", "text/plain")

    def control(self, method: str, name: str, query: dict, body: bytes) -> None:
        p, st = self.platform, self.platform.st
        data = json_body(body) if method == "POST" and body else {}
        if method == "POST" and name == "users":
            if not data.get("sub"):
                raise Refusal("sub missing")
            with st.lock:
                user = st.user(data["sub"])
                user.update({k: v for k, v in data.items() if k in
                             ("name", "given_name", "family_name", "email", "roles")})
            return self.send(200, user)
        if method == "POST" and name == "contexts":
            if not data.get("id"):
                raise Refusal("id missing")
            with st.lock:
                ctx = st.context(data["id"])
                ctx.update({k: data[k] for k in ("title", "label") if k in data})
            return self.send(200, ctx)
        if method == "POST" and name == "members":
            if not data.get("context") or not data.get("sub"):
                raise Refusal("context and sub required")
            with st.lock:
                st.context(data["context"])
                user = st.user(data["sub"])
                roles = data.get("roles") or user.get("roles", [])
                st.members.setdefault(data["context"], {})[data["sub"]] = roles
            return self.send(200, {"context": data["context"], "sub": data["sub"], "roles": roles})
        if method == "POST" and name == "launch":
            return self.send(200, p.run_launch(data))
        if method == "POST" and name == "rotate-key":
            key = Key()
            with st.lock:
                st.published.append(key)
                st.current = key
            return self.send(200, {"kid": key.kid, "published": [k.kid for k in st.published]})
        if method == "GET" and name == "log":
            with st.lock:
                return self.send(200, st.log)
        if method == "POST" and name == "reset-log":
            with st.lock:
                st.reset_log()
            return self.send(200, {})
        if method == "GET" and name == "gradebook":
            return self.send(200, p.gradebook(query.get("context", "")))
        if method == "POST" and name == "fail-next-scores":
            with st.lock:
                st.fail_scores = {"count": int(data.get("count", 1)), "status": int(data.get("status", 500))}
            return self.send(200, st.fail_scores)
        if method == "POST" and name == "deep-link":
            return self.send(200, p.deep_link(data.get("jwt", "")))
        if method == "POST" and name == "registration-start":
            return self.send(200, p.registration_start(data))
        if method == "GET" and name == "registration":
            return self.send(200, st.registration)
        raise Refusal(f"no control endpoint {method} /_test/{name}", 404)

    def log_message(self, fmt, *args):
        sys.stderr.write(f"lti-platform {self.address_string()} {fmt % args}\n")


def main() -> None:
    ap = argparse.ArgumentParser(description="LTI 1.3 test platform (an LMS) for clsfile-server's tests.")
    ap.add_argument("--tool-url", required=True, help="the tool's base URL, e.g. http://127.0.0.1:8080")
    ap.add_argument("--client-id", default="clsfile-test")
    ap.add_argument("--deployment-id", default="deployment-1")
    args = ap.parse_args()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    base = f"http://127.0.0.1:{server.server_address[1]}"
    Handler.platform = Platform(State(base, args.tool_url.rstrip("/"), args.client_id, args.deployment_id))

    def stop(*_):
        raise SystemExit(0)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"lti-platform listening on {base}", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
