/* JSON calls to the annotation API with the session cookie and the CSRF token. */
export function csrfToken() {
  const m = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/);
  return m ? decodeURIComponent(m[1]) : "";
}

/** Resolves to {status, data} (data null when the answer is not JSON); rejects only when the server is unreachable. */
export async function api(url, method, body) {
  const res = await fetch(url, {
    method, credentials: "same-origin", keepalive: method !== "GET" && body && JSON.stringify(body).length < 60000,
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
    body: body ? JSON.stringify(body) : undefined,
  });
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  return { status: res.status, data };
}
