import { describe, expect, it } from 'vitest';
import { clientCredentialsProvider } from './mcp-machine-auth.ts';
import { applicationTypeOf, codeOfResponse, mcpOAuthProvider } from './mcp-oauth.ts';

const server = { issuer: 'https://auth.example.com', authorization_response_iss_parameter_supported: true };

describe('the authorization response (issue 53: the MCP draft’s iss check, RFC 9207)', () => {
  it('takes the code from the address the server redirected to, its issuer checked', () => {
    const named = { code: 'abc', iss: 'https://auth.example.com' };
    expect(codeOfResponse('http://localhost:3000/callback?code=abc&state=s&iss=https%3A%2F%2Fauth.example.com', server)).toEqual(named);
    expect(codeOfResponse({ code: 'abc', iss: 'https://auth.example.com' }, server)).toEqual(named);
    expect(codeOfResponse(new URL('http://localhost:3000/callback?code=abc'), { issuer: 'https://auth.example.com' })).toEqual({ code: 'abc' });
    // A bare code (a pasted one) carries no issuer to check.
    expect(codeOfResponse('abc', server)).toEqual({ code: 'abc' });
  });

  it('refuses a response from another issuer (a mix-up), one without iss where the server always sends it, and one without a code', () => {
    expect(() => codeOfResponse('http://localhost:3000/callback?code=abc&iss=https%3A%2F%2Fevil.example', server)).toThrow(
      'the authorization response comes from issuer https://evil.example, not from https://auth.example.com',
    );
    expect(() => codeOfResponse({ code: 'abc' }, server)).toThrow(/always names itself in its response \(iss\)/);
    expect(() => codeOfResponse('http://localhost:3000/callback?error=access_denied', server)).toThrow('the authorization server sent no code back');
  });
});

describe('registration says what kind of client this is (issue 53: application_type)', () => {
  it('is native for a program on this machine or its own scheme, web for a page', () => {
    expect(applicationTypeOf('http://localhost:3000/callback')).toBe('native');
    expect(applicationTypeOf('http://127.0.0.1:8765/cb')).toBe('native');
    expect(applicationTypeOf('com.example.app:/oauth')).toBe('native');
    expect(applicationTypeOf('https://chat.example.com/mcp-oauth-callback.html')).toBe('web');
    const provider = mcpOAuthProvider('https://mcp.example.com/mcp', { redirectUrl: 'https://chat.example.com/cb', authorize: async () => 'c' });
    expect(provider.clientMetadata).toMatchObject({ application_type: 'web', token_endpoint_auth_method: 'none' });
  });
});

describe('machine sign-in options', () => {
  it('names what a client-credentials sign-in is missing', async () => {
    await expect(clientCredentialsProvider({ clientId: 'svc' })).rejects.toThrow(
      'clientCredentials for svc need a clientSecret (client_secret_basic) or a privateKey (private_key_jwt)',
    );
  });
});
