// The browser table's link to the seat API (docs/api.md): the seat answers it receives
// (the seat WebSocket's pushes, or the long-poll when no socket can be had) and the one
// place actions leave the page (`send`). It knows no rule: it carries answers and
// decisions. The page's session authenticates it; every unsafe request carries the
// page's CSRF token (server.accounts.auth.PageSessionAuthentication). A decision goes
// over the seat socket while it is open (docs/api.md, "Actions over the seat's socket":
// no HTTP request per move), else over REST, with the same key either way.

const LONG_POLL_SECONDS = 25;
const ANSWER_TIMEOUT_MS = 15000;
// Decisions whose meaning does not depend on the version they were made on.
const SAME_ON_ANY_VERSION = new Set(["undo", "redo", "pause", "resume"]);
const RETRY_MS = [500, 1000, 2000, 4000];
const PENDING_KEY = "dekabes-pending-";

function newKey() {
  // crypto.randomUUID needs a secure context; a club server may be plain http.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class SeatLink {
  // hooks: onAnswer(answer), onPresence(presence), onStatus("live"|"polling"|"lost"|"offline"),
  // onRefused(seat, code, message), onLeft(seat), onSettled() (a decision's answer came)
  constructor(code, seats, csrf, hooks) {
    this.code = code;
    this.seats = seats;
    this.csrf = csrf;
    this.hooks = hooks;
    this.versions = {};
    this.socket = null;
    this.socketFailures = 0;
    this.socketTimer = null; // the socket's next attempt, while it is down
    this.unreachable = false; // the last request found no server (down, restarting)
    this.polling = false;
    this.pending = null; // {seat, body, key}: the one decision on its way
    this.answers = new Map(); // command_id -> resolve, for decisions sent over the socket
    this.stopped = false;
    this.status = null;
    this.decisions = 0; // decisions sent (each once, whatever the retries)
    this.refusals = 0; // of which the server refused (nothing appended)
  }

  base(seat) {
    return `/api/tables/${this.code}/seats/${seat}`;
  }

  setStatus(status) {
    if (status !== this.status) {
      this.status = status;
      this.hooks.onStatus(status);
    }
  }

  start() {
    const kept = sessionStorage.getItem(PENDING_KEY + this.code);
    if (kept) {
      // A decision sent before a reload whose answer never came: sent again with its
      // key (the server answers the first answer, never acts twice).
      this.pending = JSON.parse(kept);
      this.flush();
    }
    this.openSocket();
  }

  take(answer) {
    if (!answer || typeof answer.version !== "number") return;
    const known = this.versions[answer.seat];
    if (known !== undefined && answer.version < known) return;
    this.versions[answer.seat] = answer.version;
    this.hooks.onAnswer(answer);
  }

  async readAll() {
    for (const seat of this.seats) {
      const answer = await this.request("GET", this.base(seat));
      if (answer.ok) this.take(answer.body);
      else if (answer.status === 403) this.hooks.onLeft(seat);
    }
  }

  openSocket() {
    clearTimeout(this.socketTimer);
    this.socketTimer = null;
    if (this.stopped || this.socket) return;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    let opened = false;
    let socket;
    try {
      socket = new WebSocket(`${scheme}://${location.host}/ws/tables/${this.code}`);
    } catch (e) {
      this.socketLost(false);
      return;
    }
    this.socket = socket;
    socket.onopen = async () => {
      opened = true;
      this.socketFailures = 0;
      this.setStatus("live");
      // Nothing is replayed on connect: read the views, then follow the pushes.
      try {
        await this.readAll();
      } catch (e) {
        /* the socket's close handler takes over */
      }
      this.flush();
    };
    socket.onmessage = (event) => {
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch (e) {
        return;
      }
      if (frame.type === "answer") this.answered(frame.command_id, frame.status, frame.body);
      else if (frame.type === "view") this.take(frame);
      else if (frame.type === "presence") this.hooks.onPresence(frame.presence);
      else if (frame.type === "ping") socket.send('{"type":"pong"}');
    };
    socket.onclose = (event) => {
      if (this.socket === socket) this.socket = null;
      // Decisions whose answer the socket took with it: sent again (same key) by flush.
      for (const key of [...this.answers.keys()]) this.answered(key, 0, null);
      if (event.code === 4403 || event.code === 4404) {
        this.seats.forEach((seat) => this.hooks.onLeft(seat));
        return;
      }
      this.socketLost(opened);
    };
  }

  socketLost(wasOpen) {
    if (this.stopped) return;
    this.socketFailures += wasOpen ? 0 : 1;
    this.setStatus("lost");
    // Long-poll meanwhile (and for good when sockets never open here).
    if (!this.polling) this.pollAll();
    const delay = RETRY_MS[Math.min(this.socketFailures, RETRY_MS.length - 1)];
    this.socketTimer = setTimeout(() => this.openSocket(), this.socketFailures > 3 ? 15000 : delay);
  }

  // A request's outcome says whether the server can be reached. When it answers again
  // after it could not be (a restart), the socket is tried at once rather than at its
  // next attempt, up to 15 s away. Where sockets never open but requests are answered
  // (a proxy without WebSockets), it fires only once after each outage, not per request.
  reached(answered) {
    if (!answered) {
      this.unreachable = true;
      return;
    }
    if (!this.unreachable) return;
    this.unreachable = false;
    if (this.socketTimer !== null) this.openSocket();
  }

  async pollAll() {
    this.polling = true;
    try {
      await Promise.all(this.seats.map((seat) => this.pollSeat(seat)));
    } finally {
      this.polling = false;
    }
  }

  async pollSeat(seat) {
    let failures = 0;
    while (!this.stopped && !this.socket) {
      const after = this.versions[seat];
      const query = after === undefined ? "" : `?wait=${LONG_POLL_SECONDS}&after=${after}`;
      const answer = await this.request("GET", this.base(seat) + query);
      if (answer.ok) {
        failures = 0;
        if (this.socket) return;
        this.setStatus("polling");
        this.take(answer.body);
        this.flush();
      } else if (answer.status === 403) {
        this.hooks.onLeft(seat);
        return;
      } else {
        failures += 1;
        this.setStatus("lost");
        await sleep(RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]);
      }
    }
  }

  async request(method, path, body, key) {
    const headers = { Accept: "application/json" };
    if (method !== "GET") headers["X-CSRFToken"] = this.csrf;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (key) headers["Idempotency-Key"] = key;
    // An answer that never comes (a connection dropped without a close) is given up
    // after a while, as one that failed: a decision is then sent again with its key.
    const waiting = path.includes("wait=") ? (LONG_POLL_SECONDS + 15) * 1000 : ANSWER_TIMEOUT_MS;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), waiting);
    try {
      const response = await fetch(path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: "same-origin",
        cache: "no-store",
        signal: abort.signal,
      });
      this.reached(response.status < 500);
      let parsed = null;
      try {
        parsed = await response.json();
      } catch (e) {
        parsed = null;
      }
      return { ok: response.ok, status: response.status, body: parsed };
    } catch (e) {
      this.reached(false);
      return { ok: false, status: 0, body: null };
    } finally {
      clearTimeout(timer);
    }
  }

  answered(key, status, body) {
    const resolve = this.answers.get(key);
    if (!resolve) return;
    this.answers.delete(key);
    resolve({ ok: status >= 200 && status < 300, status, body });
  }

  // A decision over the open socket, answered there with REST's status and body; REST
  // when there is no open socket. No answer in time counts as none (status 0).
  post(pending) {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      return this.request("POST", this.base(pending.seat) + "/actions", pending.body, pending.key);
    }
    const { type, ...fields } = pending.body;
    const message = { ...fields, type: "action", action: type, seat: pending.seat, command_id: pending.key };
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.answered(pending.key, 0, null), ANSWER_TIMEOUT_MS);
      this.answers.set(pending.key, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      try {
        socket.send(JSON.stringify(message));
      } catch (e) {
        this.answered(pending.key, 0, null);
      }
    });
  }

  // The one way a decision leaves the page. `fields`: tile, end, opener. One decision
  // at a time: a second while one travels is dropped (the page shows "Sending…").
  send(seat, type, fields) {
    if (this.pending) return false;
    const version = this.versions[seat];
    const body = Object.assign({ type, expected_version: version }, fields || {});
    this.pending = { seat, body, key: newKey() };
    this.decisions += 1;
    sessionStorage.setItem(PENDING_KEY + this.code, JSON.stringify(this.pending));
    this.flush();
    return true;
  }

  async flush() {
    const pending = this.pending;
    if (!pending || pending.flying) return;
    pending.flying = true;
    let failures = 0;
    try {
      for (;;) {
        const answer = await this.post(pending);
        if (answer.status === 0 || answer.status >= 500 || answer.status === 429) {
          // No answer (offline, the server restarting): the same decision, the same key.
          failures += 1;
          this.hooks.onStatus("offline");
          await sleep(RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]);
          continue;
        }
        this.done(pending);
        const stale = answer.body && answer.body.code === "stale_version";
        if (stale && SAME_ON_ANY_VERSION.has(pending.body.type) && (pending.again || 0) < 3 && answer.body.view) {
          // The computer moved meanwhile; "take my move back", "pause" mean the same at
          // the new version: asked once more (a new decision, a new key).
          this.take(answer.body.view);
          this.pending = { seat: pending.seat, again: (pending.again || 0) + 1, key: newKey(),
            body: Object.assign({}, pending.body, { expected_version: answer.body.view.version }) };
          sessionStorage.setItem(PENDING_KEY + this.code, JSON.stringify(this.pending));
          pending.flying = false;
          return this.flush();
        }
        if (answer.ok) {
          this.take(answer.body);
        } else {
          this.refusals += 1;
          const code = answer.body && answer.body.code;
          if (code === "stale_version" && answer.body.view) this.take(answer.body.view);
          this.hooks.onRefused(pending.seat, code, answer.body && answer.body.message);
          if (code !== "stale_version") this.readAll();
        }
        if (this.status) this.hooks.onStatus(this.status);
        // The decision is settled even when its answer is older than a pushed view.
        this.hooks.onSettled();
        return;
      }
    } finally {
      pending.flying = false;
    }
  }

  done(pending) {
    if (this.pending === pending) this.pending = null;
    sessionStorage.removeItem(PENDING_KEY + this.code);
  }

  async hint(seat) {
    const answer = await this.request("GET", this.base(seat) + "/hint");
    return answer.ok ? answer.body.hint : null;
  }

  async leave(seat) {
    const answer = await this.request("POST", this.base(seat) + "/leave", {});
    return answer.ok;
  }
}
