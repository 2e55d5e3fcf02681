// HTTP calls of docs/protocol.md. Errors come back as ApiError with the
// server's code and message.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code);
    this.status = status;
    this.code = code;
  }
}

// Every POST carries a JSON body: the server refuses other bodies (415) and
// requests from other sites (403, see docs/security.md).
async function call(method, path, body) {
  const init = { method, headers: {}, credentials: 'same-origin' };
  if (body !== undefined || method !== 'GET') {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body ?? {});
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ApiError(0, 'network', String(err));
  }
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  if (!response.ok) {
    const error = data && data.error ? data.error : { code: `http_${response.status}`, message: response.statusText };
    throw new ApiError(response.status, error.code, error.message);
  }
  return data;
}

export const api = {
  me: () => call('GET', 'api/me'),
  guest: (nickname) => call('POST', 'api/guest', { nickname }),
  login: (nickname, password) => call('POST', 'api/login', { nickname, password }),
  register: (nickname, password) => call('POST', 'api/register', { nickname, password }),
  logout: (everywhere = false) => call('POST', 'api/logout', { everywhere }),
  player: (nickname) => call('GET', `api/players/${encodeURIComponent(nickname)}`),
};
