/**
 * OAuth's own error answers (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 8707 §2): an `error` code from the RFCs and a
 * human `error_description`, rendered by the OAuth endpoints as `{error, error_description}` (or as redirect
 * parameters at the authorization endpoint). They are not the API's error catalogue: OAuth clients read these codes.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'server_error';

export class OAuthError extends Error {
  readonly error: OAuthErrorCode;
  /** The HTTP status of a JSON answer (the token, registration and revocation endpoints). */
  readonly status: number;

  constructor(error: OAuthErrorCode, description: string, status = error === 'invalid_client' ? 401 : 400) {
    super(description);
    this.name = 'OAuthError';
    this.error = error;
    this.status = status;
  }

  toBody(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.message };
  }
}
