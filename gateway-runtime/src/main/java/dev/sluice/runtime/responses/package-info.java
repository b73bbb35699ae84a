/**
 * The OpenAI Responses API on the client side (SPEC API-7): a {@code POST /v1/responses} request
 * read into the canonical model ({@link dev.sluice.runtime.responses.ResponsesRequestReader}), a
 * canonical answer written as a {@code response} object, and canonical stream chunks translated to
 * the Responses stream events one at a time ({@link dev.sluice.runtime.responses.ResponsesStreamTranslator}).
 */
package dev.sluice.runtime.responses;
