import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpStatusFor, problemFor, type ErrorCode, type FieldError } from '../errors.js';
import { newId } from '../ids.js';
import { operationOutcomeFor } from '../operation-outcome.js';

/** FHIR paths speak OperationOutcome; everything else speaks RFC 9457 problem+json. */
export function isFhirPath(url: string): boolean {
  return url === '/fhir/R4' || url.startsWith('/fhir/R4/') || url.startsWith('/fhir/R4?');
}

/** An error answer in the dialect of the path it is for: media type and body. */
export function errorDocument(
  url: string,
  code: ErrorCode,
  detail: string,
  extras: { requestId?: string; fieldErrors?: readonly FieldError[]; details?: Record<string, unknown> } = {},
): { status: number; contentType: string; body: Record<string, unknown> } {
  const path = url.split('?')[0] ?? url;
  if (isFhirPath(url)) {
    return { status: httpStatusFor(code), contentType: 'application/fhir+json; charset=utf-8', body: operationOutcomeFor(code, detail, extras.fieldErrors) };
  }
  const body = problemFor(code, detail, { instance: path, ...extras });
  return { status: body.status, contentType: 'application/problem+json; charset=utf-8', body };
}

/** Send an error document for this request, with its request id. */
export function sendErrorDocument(req: FastifyRequest, reply: FastifyReply, code: ErrorCode, detail: string, extras: { fieldErrors?: readonly FieldError[]; details?: Record<string, unknown> } = {}): FastifyReply {
  const doc = errorDocument(req.url, code, detail, { requestId: String(req.id), ...extras });
  return reply.code(doc.status).header('x-request-id', String(req.id)).type(doc.contentType).send(doc.body);
}

/**
 * Fastify's `frameworkErrors`: what the router refuses before any route runs. A malformed
 * percent-encoding in the path is a 400, a path parameter over `maxParamLength` a 414.
 */
export function frameworkErrors(error: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    sendErrorDocument(req, reply, 'URI_TOO_LONG', 'A path segment of the URL is too long.');
  } else if (error.code === 'FST_ERR_BAD_URL') {
    sendErrorDocument(req, reply, 'BAD_REQUEST', 'The URL is not valid: it has a malformed percent-encoding.');
  } else {
    req.log.error({ err: error }, 'router failed');
    sendErrorDocument(req, reply, 'INTERNAL', 'Internal server error.');
  }
}

/** Errors Fastify raises while reading a request (body parsing, content length, media type): 4xx problem documents. */
export function requestErrorHandler(error: FastifyError, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const status = error.statusCode ?? 500;
  if (status === 413) return sendErrorDocument(req, reply, 'PAYLOAD_TOO_LARGE', 'The request body is too large.');
  if (status === 415) return sendErrorDocument(req, reply, 'UNSUPPORTED_MEDIA_TYPE', error.message);
  if (status >= 400 && status < 500) return sendErrorDocument(req, reply, 'BAD_REQUEST', error.message);
  req.log.error({ err: error }, 'unhandled error');
  return sendErrorDocument(req, reply, 'INTERNAL', 'Internal server error.');
}

/** Longest request line (method, URL, version) read as a URL problem rather than a header problem. */
const REQUEST_LINE_LIMIT = 8 * 1024;

/** The request line of what the parser had read, if any: it tells a too-long URL and the FHIR dialect. */
function requestLineOf(raw: unknown): { line: string | null; complete: boolean } {
  if (!Buffer.isBuffer(raw) || raw.length === 0) return { line: null, complete: false };
  const text = raw.subarray(0, REQUEST_LINE_LIMIT + 2).toString('latin1');
  const end = text.indexOf('\r\n');
  return end < 0 ? { line: text, complete: false } : { line: text.slice(0, end), complete: true };
}

/**
 * The HTTP server's `clientError`: what Node's parser refuses before Fastify sees a request (headers
 * over the size limit, a malformed request line or Content-Length). Answered on the raw socket as
 * a problem document (OperationOutcome for a /fhir/R4 URL) with a fresh request id, then closed.
 */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const requestId = newId('req');
  const { line, complete } = requestLineOf(err.rawPacket);
  const url = line?.split(' ')[1] ?? '/';
  let code: ErrorCode;
  let detail: string;
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    const urlTooLong = line !== null && (!complete || line.length > REQUEST_LINE_LIMIT);
    code = urlTooLong ? 'URI_TOO_LONG' : 'HEADERS_TOO_LARGE';
    detail = urlTooLong ? 'The URL is too long.' : 'The request headers are too large.';
  } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.destroy(err);
    return;
  } else {
    code = 'BAD_REQUEST';
    detail = 'The request is not valid HTTP/1.1 (request line, header or Content-Length).';
  }
  this.log.info({ requestId, code, parserError: err.code }, 'request refused by the HTTP parser');
  // A URL too long to read is not echoed back; it still decides the dialect.
  const target = !url.startsWith('/') ? '/' : code === 'URI_TOO_LONG' ? (isFhirPath(url) ? '/fhir/R4' : '/') : url;
  writeErrorDocument(socket, errorDocument(target, code, detail, { requestId }), requestId);
  socket.destroy(err);
}

/**
 * Write an error document as a whole HTTP/1.1 response on a raw socket (a request Node's parser
 * refused, or a WebSocket upgrade refused before the handshake). The caller closes the socket.
 */
export function writeErrorDocument(socket: Duplex, doc: { status: number; contentType: string; body: Record<string, unknown> }, requestId: string): void {
  const body = JSON.stringify(doc.body);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${doc.status} ${STATUS_CODES[doc.status] ?? 'Error'}\r\nContent-Type: ${doc.contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  }
}
