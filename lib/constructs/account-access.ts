import { AuthorizationType, CognitoUserPoolsAuthorizer, IdentitySource, type MethodOptions } from 'aws-cdk-lib/aws-apigateway';
import type { IUserPool } from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { FUNCTION_ENV } from '../../lambdas/composition/function-env';
import type { ServiceFunction } from './service-function';

export interface AccountAccessProps {
  /** The dashboard's user pool (stateful: DashboardIdentity). */
  readonly userPool: IUserPool;
  /** The ID tokens' issuer and audience, for the functions' own check of the token. */
  readonly issuerUrl: string;
  readonly clientId: string;
}

/**
 * The account API's gate: API Gateway's Cognito authorizer, which accepts a valid, unexpired ID
 * token of the dashboard's user pool in `Authorization: Bearer <jwt>` (no scopes are named, so an
 * access token is refused) before the function runs; no API key. API Gateway requires the
 * authorizer to guard at least one method, so it exists only with account routes.
 */
export class AccountAccess extends Construct {
  readonly authorizer: CognitoUserPoolsAuthorizer;
  readonly methodOptions: MethodOptions;
  private readonly props: AccountAccessProps;

  constructor(scope: Construct, id: string, props: AccountAccessProps) {
    super(scope, id);
    this.props = props;
    this.authorizer = new CognitoUserPoolsAuthorizer(this, 'Authorizer', {
      cognitoUserPools: [props.userPool],
      identitySource: IdentitySource.header('Authorization'),
    });
    this.methodOptions = { authorizer: this.authorizer, authorizationType: AuthorizationType.COGNITO, apiKeyRequired: false };
  }

  /** Tells an account route's function the issuer and audience its tokens must name (it checks them again with jose, as locally). */
  bindAccountToken(fn: ServiceFunction): void {
    fn.lambdaFunction
      .addEnvironment(FUNCTION_ENV.accountTokenIssuer, this.props.issuerUrl)
      .addEnvironment(FUNCTION_ENV.accountTokenAudience, this.props.clientId);
  }
}
