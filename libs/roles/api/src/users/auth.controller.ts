import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { TENANT_ROLES } from '@lanner/access';
import { LoginLocked, LoginRejected, SessionRejected, type UserSession, WeakPassword } from '@lanner/auth';
import { z } from 'zod';
import type { AuthenticatedRequest } from '../auth/access.guard';
import { ApiTokenAuth, roleOfStored } from '../auth/api-token-auth';
import { Public } from '../auth/route-access.decorator';
import { InvalidRequest, TooManyAttempts, Unauthenticated } from '../http/api-errors';
import type { HttpResponse } from '../http/http-types';
import { parseWith } from '../http/request-body';
import { BearerAuth, ProblemResponses } from '../openapi/api-docs.decorators';
import { instant, JsonAnswer, JsonBody } from '../openapi/zod-openapi';
import { UserSessions } from './user-sessions';
import { Audit, NotAudited } from '../audit/audit.decorator';
import { newPasswordField } from './password-field';

/** The refresh token's cookie: sent back only to the auth routes, never readable by scripts. */
export const REFRESH_COOKIE = 'lanner_refresh';
const REFRESH_COOKIE_PATH = '/api/v1/auth';

const LoginBodySchema = z.object({ username: z.string().min(1).max(200), password: z.string().min(1).max(1024) }).strict();
const PasswordChangeBodySchema = z
  .object({ currentPassword: z.string().min(1).max(1024), newPassword: newPasswordField().min(1).max(1024) })
  .strict();

const SessionViewSchema = z.object({
  accessToken: z.string().describe('Send as Authorization: Bearer <accessToken>'),
  tokenType: z.literal('Bearer'),
  expiresAt: instant(),
  user: z.object({ username: z.string(), tenant: z.string(), role: z.enum(TENANT_ROLES), instanceAdmin: z.boolean() }),
});
const MeViewSchema = z.object({
  username: z.string().nullable().describe('null for an API token'),
  tenant: z.string(),
  role: z.enum(TENANT_ROLES),
  namespace: z.string().nullable(),
  instanceAdmin: z.boolean(),
});

type RequestWithCookies = AuthenticatedRequest & { headers: { cookie?: string } };

/** The value of one cookie of the Cookie header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

function refreshCookie(value: string, maxAgeS: number): string {
  return `${REFRESH_COOKIE}=${value}; Path=${REFRESH_COOKIE_PATH}; Max-Age=${maxAgeS}; HttpOnly; Secure; SameSite=Strict`;
}

/**
 * Login of users with a password. These routes are @Public because they are
 * how a caller gets a token: login checks the password, refresh and logout the
 * refresh-token cookie, and `me`/`password` authenticate the bearer themselves.
 */
@ApiTags('access')
@Controller('api/v1/auth')
export class AuthController {
  constructor(
    private readonly users: UserSessions,
    private readonly auth: ApiTokenAuth,
  ) {}

  @Public()
  @NotAudited('a login changes no resource; a failed one answers 401, a locked one 429')
  @Post('login')
  @HttpCode(200)
  @ApiOperation({ summary: 'Log in with a username and password: an access JWT, and the refresh token as an HttpOnly cookie' })
  @JsonBody(LoginBodySchema)
  @JsonAnswer(SessionViewSchema, { description: 'Logged in' })
  @ProblemResponses(400, 401, 429, 503)
  async login(@Body() body: unknown, @Res({ passthrough: true }) response: HttpResponse) {
    const { username, password } = parseWith(LoginBodySchema, body, 'body');
    try {
      return this.answer(await this.users.sessions.login(username, password, new Date()), response);
    } catch (error) {
      if (error instanceof LoginLocked) {
        response.setHeader('Retry-After', String(Math.max(1, Math.ceil((error.until.getTime() - Date.now()) / 1000))));
        throw new TooManyAttempts(error.message);
      }
      if (error instanceof LoginRejected) throw new Unauthenticated(error.message);
      throw error;
    }
  }

  @Public()
  @NotAudited("rotates the caller's own session token")
  @Post('refresh')
  @HttpCode(200)
  @ApiOperation({
    summary: 'A new access JWT for the refresh-token cookie, which is rotated; a refresh token used twice ends its login',
  })
  @JsonAnswer(SessionViewSchema, { description: 'Refreshed' })
  @ProblemResponses(401, 503)
  async refresh(@Req() request: RequestWithCookies, @Res({ passthrough: true }) response: HttpResponse) {
    const presented = cookieValue(request.headers.cookie, REFRESH_COOKIE);
    if (presented === undefined) throw new Unauthenticated(`No ${REFRESH_COOKIE} cookie: log in at /api/v1/auth/login`);
    try {
      return this.answer(await this.users.sessions.refresh(presented, new Date()), response);
    } catch (error) {
      if (error instanceof SessionRejected) {
        response.setHeader('Set-Cookie', refreshCookie('', 0));
        throw new Unauthenticated(error.message);
      }
      throw error;
    }
  }

  @Public()
  @NotAudited("ends the caller's own session")
  @Post('logout')
  @HttpCode(204)
  @ApiOperation({ summary: 'End the login of the refresh-token cookie (every token of it) and clear the cookie' })
  @ApiResponse({ status: 204, description: 'Logged out' })
  @ProblemResponses(503)
  async logout(@Req() request: RequestWithCookies, @Res({ passthrough: true }) response: HttpResponse): Promise<void> {
    await this.users.sessions.logout(cookieValue(request.headers.cookie, REFRESH_COOKIE), new Date());
    response.setHeader('Set-Cookie', refreshCookie('', 0));
  }

  // Any valid bearer (user JWT or API token) may ask who it is: the handler authenticates it.
  @Public()
  @Get('me')
  @BearerAuth()
  @ApiOperation({ summary: 'Who the bearer is: user or API token, tenant, role, namespace prefix' })
  @JsonAnswer(MeViewSchema, { description: 'The caller' })
  @ProblemResponses(401)
  async me(@Req() request: AuthenticatedRequest): Promise<z.output<typeof MeViewSchema>> {
    const principal = await this.auth.authenticate(request.headers.authorization, new Date());
    return {
      username: principal.userId === undefined ? null : principal.tokenId.slice('user:'.length),
      tenant: principal.tenantId,
      role: principal.role,
      namespace: principal.namespace,
      instanceAdmin: principal.instanceAdmin,
    };
  }

  // Only a logged-in user changes its own password: the handler authenticates the bearer and wants a user JWT.
  @Public()
  @Audit('user.change-password', { id: 'caller' })
  @Post('password')
  @HttpCode(204)
  @BearerAuth()
  @ApiOperation({ summary: "Change the caller's password (the current one is checked); every login of the user ends" })
  @JsonBody(PasswordChangeBodySchema)
  @ApiResponse({ status: 204, description: 'Changed' })
  @ProblemResponses(400, 401, 503)
  async changePassword(
    @Req() request: AuthenticatedRequest,
    @Body() body: unknown,
    @Res({ passthrough: true }) response: HttpResponse,
  ) {
    const principal = await this.auth.authenticate(request.headers.authorization, new Date());
    // The audit entry names the verified caller.
    request.principal = principal;
    if (principal.userId === undefined)
      throw new Unauthenticated('Only a logged-in user has a password: send a user access token');
    const { currentPassword, newPassword } = parseWith(PasswordChangeBodySchema, body, 'body');
    try {
      await this.users.sessions.changePassword(principal.userId, currentPassword, newPassword, new Date());
    } catch (error) {
      if (error instanceof LoginRejected) throw new Unauthenticated('The current password is wrong');
      if (error instanceof WeakPassword)
        throw new InvalidRequest('The body is not valid', [{ path: 'newPassword', message: error.message }]);
      throw error;
    }
    response.setHeader('Set-Cookie', refreshCookie('', 0));
  }

  private answer(session: UserSession, response: HttpResponse): z.output<typeof SessionViewSchema> {
    const maxAge = Math.max(0, Math.floor((session.refreshExpiresAt.getTime() - Date.now()) / 1000));
    response.setHeader('Set-Cookie', refreshCookie(session.refreshToken, maxAge));
    response.setHeader('Cache-Control', 'no-store');
    return {
      accessToken: session.accessToken,
      tokenType: 'Bearer',
      expiresAt: session.accessExpiresAt.toISOString(),
      user: {
        username: session.user.username,
        tenant: session.user.tenantId,
        role: roleOfStored(session.user.role as 'ADMIN' | 'DEVELOPER' | 'VIEWER'),
        instanceAdmin: session.user.instanceAdmin,
      },
    };
  }
}
